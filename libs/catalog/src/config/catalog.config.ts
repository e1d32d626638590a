import { httpUrl } from '@lib/core';
import { z } from 'zod';

const seconds = z.number().min(0);

export const CatalogSchema = z
  .object({
    /**
     * Freshness lifetime per route name; unnamed routes keep their default. The routes and their
     * defaults are declared by the lib that serves them; the app checks the names.
     */
    ttlSeconds: z.record(z.string(), z.number().positive()).default({}),
    /** After freshness ends: serve the stale entry and refresh it once in the background (RFC 5861). */
    staleWhileRevalidateSeconds: seconds.default(30),
    /** After freshness ends: serve the stale entry when the upstream fails or the budget is spent (RFC 5861). */
    staleIfErrorSeconds: seconds.default(300),
    /** In-process LRU in front of the shared cache: hits cost no Redis round trip. */
    lruEntries: z.number().int().min(0).default(1_000),
    lruMaxBytes: z
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
    /** Without Redis the whole cache is in process, bounded by this many entries. */
    memoryEntries: z.number().int().positive().default(10_000),
    /** Cross-instance coalescing: how long a leader holds the fill lock, and how long followers wait for its result. */
    lockMs: z.number().int().positive().default(5_000),
    followerWaitMs: z.number().int().min(0).default(2_000),
    /** How long a miss may queue for the upstream budget (spec §8: 20 per second per IP) before it is refused. */
    budgetWaitMs: z.number().int().min(0).default(1_000),
    requestTimeoutMs: z.number().int().positive().default(5_000),
  })
  .strict();

export type CatalogConfig = z.infer<typeof CatalogSchema>;

/** What the catalog adds to each environment's addresses (`environments.<name>`). */
export const CatalogEnvironmentFields = { catalogUrl: httpUrl };

/** What the catalog lib reads of the gateway's config: its section, and the running environment's catalog address. */
export interface CatalogConfigView {
  catalog: CatalogConfig;
  redis?: { keyPrefix: string };
  environment: string;
  environments: Partial<Record<string, { catalogUrl: string }>>;
}
