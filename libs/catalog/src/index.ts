export { CatalogModule } from './catalog.module.js';
