import type { z } from 'zod';

import {
  EventsQuerySchema,
  IdParamsSchema,
  MarketsQuerySchema,
  NoParamsSchema,
  NoQuerySchema,
  SearchQuerySchema,
  SectionQuerySchema,
  SeriesIdParamsSchema,
  SeriesQuerySchema,
  SlugParamsSchema,
  TeamsQuerySchema,
} from '../schemas/catalog-query.schema.js';

export interface CatalogRoute {
  /** Upstream path; `{name}` segments are filled from the path parameters. */
  readonly path: string;
  readonly params: z.ZodObject;
  readonly query: z.ZodObject;
  /** Default freshness (`catalog.ttlSeconds.<route>` overrides it). */
  readonly ttlSeconds: number;
}

const route = <P extends z.ZodObject, Q extends z.ZodObject>(path: string, params: P, query: Q, ttlSeconds: number) =>
  ({ path, params, query, ttlSeconds }) as const;

// Default freshness: listings and records change within seconds around game time, books and best prices every trade, reference data (sports, series, teams) rarely.
const RECORD = 5;
const PRICES = 1;
const REFERENCE = 60;

/** Every route of the catalog gateway (upstream-facts "Catalog base"; spec §4.4), all GET, none authenticated. */
export const CATALOG_ROUTES = {
  events: route('/v1/events', NoParamsSchema, EventsQuerySchema, RECORD),
  event: route('/v1/events/{id}', IdParamsSchema, NoQuerySchema, RECORD),
  eventBySlug: route('/v1/events/slug/{slug}', SlugParamsSchema, NoQuerySchema, RECORD),
  markets: route('/v1/markets', NoParamsSchema, MarketsQuerySchema, RECORD),
  market: route('/v1/market/id/{id}', IdParamsSchema, NoQuerySchema, RECORD),
  marketBySlug: route('/v1/market/slug/{slug}', SlugParamsSchema, NoQuerySchema, RECORD),
  book: route('/v1/markets/{slug}/book', SlugParamsSchema, NoQuerySchema, PRICES),
  bbo: route('/v1/markets/{slug}/bbo', SlugParamsSchema, NoQuerySchema, PRICES),
  settlement: route('/v1/markets/{slug}/settlement', SlugParamsSchema, NoQuerySchema, REFERENCE),
  series: route('/v1/series', NoParamsSchema, SeriesQuerySchema, REFERENCE),
  seriesById: route('/v1/series/id/{id}', IdParamsSchema, NoQuerySchema, REFERENCE),
  sports: route('/v1/sports', NoParamsSchema, NoQuerySchema, REFERENCE),
  teams: route('/v1/sports/teams/provider', NoParamsSchema, TeamsQuerySchema, REFERENCE),
  search: route('/v1/search', NoParamsSchema, SearchQuerySchema, RECORD),
  sport: route('/v2/sports/{slug}', SlugParamsSchema, NoQuerySchema, REFERENCE),
  leagueEvents: route('/v2/leagues/{slug}/events', SlugParamsSchema, SectionQuerySchema, RECORD),
  seriesEvents: route('/v1/sports/{seriesId}/events', SeriesIdParamsSchema, SectionQuerySchema, RECORD),
} as const satisfies Record<string, CatalogRoute>;

/** Stable route names: config TTL keys, metric labels, sandbox counters and purge targets all use them. */
export type CatalogRouteName = keyof typeof CATALOG_ROUTES;

export type CatalogRoutes = typeof CATALOG_ROUTES;
export type CatalogParams<R extends CatalogRouteName> = z.infer<CatalogRoutes[R]['params']>;
export type CatalogQuery<R extends CatalogRouteName> = z.infer<CatalogRoutes[R]['query']>;

export const CATALOG_ROUTE_NAMES = Object.keys(CATALOG_ROUTES) as CatalogRouteName[];

/** Each route's freshness: its declared default unless `catalog.ttlSeconds` names it. */
export function catalogTtlSeconds(overrides: Readonly<Record<string, number>>): Record<CatalogRouteName, number> {
  return Object.fromEntries(
    CATALOG_ROUTE_NAMES.map((name) => [name, overrides[name] ?? CATALOG_ROUTES[name].ttlSeconds]),
  ) as Record<CatalogRouteName, number>;
}

/** The config check the app adds to its schema: `catalog.ttlSeconds` may name only the routes declared here. */
export function catalogConfigCheck(
  config: { catalog: { ttlSeconds: Readonly<Record<string, number>> } },
  ctx: z.RefinementCtx,
): void {
  for (const name of Object.keys(config.catalog.ttlSeconds)) {
    if (!(name in CATALOG_ROUTES))
      ctx.addIssue({
        code: 'custom',
        path: ['catalog', 'ttlSeconds', name],
        message: `"${name}" is not a catalog route`,
      });
  }
}

/** Each route's path split at its `{name}` segments: even indexes literal text, odd ones parameter names. */
const PATH_PARTS = Object.fromEntries(
  CATALOG_ROUTE_NAMES.map((name) => [name, CATALOG_ROUTES[name].path.split(/\{(\w+)\}/)]),
) as Record<CatalogRouteName, string[]>;

/** The upstream path of a route with its parameters filled in (each one a validated slug or id). */
export function pathOf(name: CatalogRouteName, params: Record<string, string>): string {
  const parts = PATH_PARTS[name];
  let path = parts[0];
  for (let i = 1; i < parts.length; i += 2) {
    const value = params[parts[i]];
    if (value === undefined) throw new Error(`route ${name} needs path parameter ${parts[i]}`);
    path += encodeURIComponent(value) + parts[i + 1];
  }
  return path;
}
