export { ExchangeHttpClient, type ExchangeCall } from './client/exchange-http.client.js';
export { ExchangeModule } from './exchange.module.js';
