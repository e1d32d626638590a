export { CatalogModule } from './catalog.module.js';
export {
  CatalogEnvironmentFields,
  CatalogSchema,
  type CatalogConfig,
  type CatalogConfigView,
} from './config/catalog.config.js';
export { CATALOG_BUCKETS, CATALOG_BUCKET_NAMES, CATALOG_BUDGETS } from './budget/catalog-budgets.js';
export { CatalogClient, type CatalogCallContext } from './client/catalog.client.js';
export type { Served } from './cache/catalog-cache.service.js';
export { type CatalogEntry, matchesIfNoneMatch } from './cache/catalog-entry.js';
export { ageSeconds, cacheControl } from './cache/freshness.js';
export type { PurgeMatch } from './cache/catalog-store.js';
export type { CacheResult } from './metrics/catalog.metrics.js';
export {
  CATALOG_ROUTES,
  CATALOG_ROUTE_NAMES,
  catalogConfigCheck,
  catalogTtlSeconds,
  pathOf,
  type CatalogParams,
  type CatalogQuery,
  type CatalogRoute,
  type CatalogRouteName,
} from './routes/catalog-routes.js';
export {
  EventsQuerySchema,
  IdParamsSchema,
  LISTING_SECTIONS,
  LISTING_TYPES,
  MarketsQuerySchema,
  NoQuerySchema,
  SEARCH_STATUSES,
  SearchQuerySchema,
  SectionQuerySchema,
  SeriesIdParamsSchema,
  SeriesQuerySchema,
  SlugParamsSchema,
  TeamsQuerySchema,
  type EventsQuery,
  type IdParams,
  type MarketsQuery,
  type NoQuery,
  type SearchQuery,
  type SectionQuery,
  type SeriesIdParams,
  type SeriesQuery,
  type SlugParams,
  type TeamsQuery,
} from './schemas/catalog-query.schema.js';
