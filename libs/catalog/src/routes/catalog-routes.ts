import type { GatewayConfig } from '@lib/core';
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

/** Stable route names: config TTL keys, metric labels, sandbox counters and purge targets all use them. */
export type CatalogRouteName = keyof GatewayConfig['catalog']['ttlSeconds'];

export interface CatalogRoute {
  /** Upstream path; `{name}` segments are filled from the path parameters. */
  readonly path: string;
  readonly params: z.ZodObject;
  readonly query: z.ZodObject;
}

const route = <P extends z.ZodObject, Q extends z.ZodObject>(path: string, params: P, query: Q) => ({ path, params, query }) as const;

/** Every route of the catalog gateway (upstream-facts "Catalog base"; spec §4.4), all GET, none authenticated. */
export const CATALOG_ROUTES = {
  events: route('/v1/events', NoParamsSchema, EventsQuerySchema),
  event: route('/v1/events/{id}', IdParamsSchema, NoQuerySchema),
  eventBySlug: route('/v1/events/slug/{slug}', SlugParamsSchema, NoQuerySchema),
  markets: route('/v1/markets', NoParamsSchema, MarketsQuerySchema),
  market: route('/v1/market/id/{id}', IdParamsSchema, NoQuerySchema),
  marketBySlug: route('/v1/market/slug/{slug}', SlugParamsSchema, NoQuerySchema),
  book: route('/v1/markets/{slug}/book', SlugParamsSchema, NoQuerySchema),
  bbo: route('/v1/markets/{slug}/bbo', SlugParamsSchema, NoQuerySchema),
  settlement: route('/v1/markets/{slug}/settlement', SlugParamsSchema, NoQuerySchema),
  series: route('/v1/series', NoParamsSchema, SeriesQuerySchema),
  seriesById: route('/v1/series/id/{id}', IdParamsSchema, NoQuerySchema),
  sports: route('/v1/sports', NoParamsSchema, NoQuerySchema),
  teams: route('/v1/sports/teams/provider', NoParamsSchema, TeamsQuerySchema),
  search: route('/v1/search', NoParamsSchema, SearchQuerySchema),
  sport: route('/v2/sports/{slug}', SlugParamsSchema, NoQuerySchema),
  leagueEvents: route('/v2/leagues/{slug}/events', SlugParamsSchema, SectionQuerySchema),
  seriesEvents: route('/v1/sports/{seriesId}/events', SeriesIdParamsSchema, SectionQuerySchema),
} as const satisfies Record<CatalogRouteName, CatalogRoute>;

export type CatalogRoutes = typeof CATALOG_ROUTES;
export type CatalogParams<R extends CatalogRouteName> = z.infer<CatalogRoutes[R]['params']>;
export type CatalogQuery<R extends CatalogRouteName> = z.infer<CatalogRoutes[R]['query']>;

export const CATALOG_ROUTE_NAMES = Object.keys(CATALOG_ROUTES) as CatalogRouteName[];

/** Each route's path split at its `{name}` segments: even indexes literal text, odd ones parameter names. */
const PATH_PARTS = Object.fromEntries(CATALOG_ROUTE_NAMES.map((name) => [name, CATALOG_ROUTES[name].path.split(/\{(\w+)\}/)])) as Record<CatalogRouteName, string[]>;

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
