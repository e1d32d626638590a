export { RetailModule } from './retail.module.js';
