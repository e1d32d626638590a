export { RetailHttpClient, type RetailCall } from './client/retail-http.client.js';
export { RetailModule } from './retail.module.js';
