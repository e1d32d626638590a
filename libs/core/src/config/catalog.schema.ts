import { z } from 'zod';

/** Every catalog gateway route the gateway serves (upstream-facts "Catalog base"; spec §4.4), by stable name. */
export const CATALOG_ROUTE_NAMES = [
  'events',
  'event',
  'eventBySlug',
  'markets',
  'market',
  'marketBySlug',
  'book',
  'bbo',
  'settlement',
  'series',
  'seriesById',
  'sports',
  'teams',
  'search',
  'sport',
  'leagueEvents',
  'seriesEvents',
] as const;
export type CatalogRouteName = (typeof CATALOG_ROUTE_NAMES)[number];

/**
 * Default freshness per route: listings and records change within seconds around game time, books
 * and best prices every trade, reference data (sports, series, teams) rarely.
 */
const DEFAULT_TTL_SECONDS: Record<CatalogRouteName, number> = {
  events: 5,
  event: 5,
  eventBySlug: 5,
  markets: 5,
  market: 5,
  marketBySlug: 5,
  book: 1,
  bbo: 1,
  settlement: 60,
  series: 60,
  seriesById: 60,
  sports: 60,
  teams: 60,
  search: 5,
  sport: 60,
  leagueEvents: 5,
  seriesEvents: 5,
};

const seconds = z.number().min(0);

export const CatalogSchema = z
  .object({
    /** Freshness lifetime per route name; unnamed routes keep their default. */
    ttlSeconds: z.partialRecord(z.enum(CATALOG_ROUTE_NAMES), z.number().positive()).default({}),
    /** After freshness ends: serve the stale entry and refresh it once in the background (RFC 5861). */
    staleWhileRevalidateSeconds: seconds.default(30),
    /** After freshness ends: serve the stale entry when the upstream fails or the budget is spent (RFC 5861). */
    staleIfErrorSeconds: seconds.default(300),
    /** In-process LRU in front of the shared cache: hits cost no Redis round trip. */
    lruEntries: z.number().int().min(0).default(1_000),
    lruMaxBytes: z.number().int().min(0).default(64 * 1024 * 1024),
    /** Without Redis the whole cache is in process, bounded by this many entries. */
    memoryEntries: z.number().int().positive().default(10_000),
    /** Cross-instance coalescing: how long a leader holds the fill lock, and how long followers wait for its result. */
    lockMs: z.number().int().positive().default(5_000),
    followerWaitMs: z.number().int().min(0).default(2_000),
    /** How long a miss may queue for the upstream budget (spec §8: 20 per second per IP) before it is refused. */
    budgetWaitMs: z.number().int().min(0).default(1_000),
    requestTimeoutMs: z.number().int().positive().default(5_000),
  })
  .strict()
  .transform(({ ttlSeconds, ...rest }) => ({ ...rest, ttlSeconds: { ...DEFAULT_TTL_SECONDS, ...ttlSeconds } }));

export type CatalogConfig = z.infer<typeof CatalogSchema>;
