import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, type CounterSeries, DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';

import { type CacheResult, CatalogMetrics } from '../metrics/catalog.metrics.js';
import type { CatalogEntry } from './catalog-entry.js';
import { CATALOG_STORE, type CatalogStore, type PurgeMatch, purgeFilter } from './catalog-store.js';
import { phaseOf, retentionMs, type StaleWindows, usableOnError } from './freshness.js';
import { Lru } from './lru.js';
import type { CatalogConfigView } from '../config/catalog.config.js';

export interface CacheLookup {
  route: string;
  key: string;
  /** The upstream call, made by whichever request leads the fill. */
  fetch: () => Promise<CatalogEntry>;
}

export interface Served {
  entry: CatalogEntry;
  result: CacheResult;
}

interface Fill {
  entry: CatalogEntry;
  /** Another instance made the call and this one waited for its result. */
  elsewhere: boolean;
}

/** Upstream failures a stale entry may answer for (RFC 5861 stale-if-error); a bad request may not. */
/** The refusals of one caller's budget (its team's share, its in-flight bounds): another caller's may allow the call. */
const OWN_BUDGET: ReadonlySet<ErrorCode> = new Set([ErrorCode.RATE_LIMITED, ErrorCode.IN_FLIGHT_LIMITED]);

const STALE_IF = new Set<ErrorCode>([
  ErrorCode.UPSTREAM_ERROR,
  ErrorCode.UPSTREAM_UNAVAILABLE,
  ErrorCode.UPSTREAM_TIMEOUT,
  ErrorCode.UPSTREAM_RATE_LIMITED,
  ErrorCode.RATE_LIMITED,
  ErrorCode.IN_FLIGHT_LIMITED,
]);

/**
 * Two tiers: a bounded LRU in this process (a hit costs no Redis round trip), then the shared store.
 * Concurrent misses of one key make one upstream call: within the instance they share one promise,
 * across instances one of them holds the key's fill lock and the others wait for its result.
 */
@Injectable()
export class CatalogCache implements OnApplicationShutdown {
  private readonly logger = new Logger('CatalogCache');
  private readonly local: Lru<CatalogEntry>;
  private readonly inflight = new Map<string, Promise<Fill>>();
  private readonly refreshing = new Set<string>();
  /** Purges seen (here or from another instance): a fill that overlapped one keeps nothing. */
  private purges = 0;
  private readonly windows: StaleWindows;
  private readonly lockMs: number;
  private readonly followerWaitMs: number;

  constructor(
    @Inject(CATALOG_STORE) private readonly store: CatalogStore,
    @Inject(GATEWAY_CONFIG) config: CatalogConfigView,
    private readonly metrics: CatalogMetrics,
    private readonly clock: Clock,
  ) {
    const catalog = config.catalog;
    this.local = new Lru(catalog.lruEntries, catalog.lruMaxBytes);
    this.windows = {
      staleWhileRevalidateMs: catalog.staleWhileRevalidateSeconds * 1000,
      staleIfErrorMs: catalog.staleIfErrorSeconds * 1000,
    };
    this.lockMs = catalog.lockMs;
    this.followerWaitMs = catalog.followerWaitMs;
    store.onPurge((match) => {
      this.purges++;
      this.local.purge(purgeFilter(match));
    });
  }

  /** The hit path of get(), answered without waiting: a fresh entry of this process's LRU, or undefined. */
  peek(lookup: Pick<CacheLookup, 'route' | 'key'>): Served | undefined {
    const entry = this.freshEntry(lookup.key, this.clock.now());
    return entry && this.served(lookup, entry, 'hit');
  }

  /**
   * The fresh entry of this process's LRU at `now` (its LRU mark set), or undefined; counts nothing:
   * a caller that answers with it counts the hit (CatalogClient.freshHit, with the series of
   * hitCounter). One clock read serves the caller's whole hit.
   */
  freshEntry(key: string, now: number): CatalogEntry | undefined {
    const entry = this.local.get(key, now);
    return entry && phaseOf(entry, now, this.windows) === 'fresh' ? entry : undefined;
  }

  /** The series a hit of this route is counted in (catalog_cache_requests_total{result="hit"}), for a caller that keeps it. */
  hitCounter(route: string): CounterSeries {
    return this.metrics.hitCounter(route);
  }

  async get(lookup: CacheLookup): Promise<Served> {
    const hit = this.peek(lookup);
    if (hit) return hit;
    // Stale or absent here: another instance may have refreshed the shared copy meanwhile.
    let entry = this.local.get(lookup.key, this.clock.now());
    const shared = await this.store.get(lookup.key);
    if (shared && (!entry || shared.storedAt > entry.storedAt)) {
      this.remember(lookup.key, shared);
      entry = shared;
    }
    const phase = entry ? phaseOf(entry, this.clock.now(), this.windows) : 'expired';
    if (entry && phase === 'fresh') return this.served(lookup, entry, 'hit');
    if (entry && phase === 'revalidate') {
      this.refreshInBackground(lookup);
      return this.served(lookup, entry, 'stale');
    }
    try {
      const after = entry?.storedAt ?? 0;
      const { fill, joined } = this.load(lookup, after);
      const { entry: loaded, elsewhere } = await fill.catch((error: unknown) => {
        // The fill joined was another caller's, refused for that caller's budget (its team's share, its
        // in-flight bound): this caller's own may allow it, so it fetches under its own. Before (a probe),
        // a team with no share left got every other team's miss of a key it was fetching refused 429,
        // naming that team.
        if (joined && error instanceof DomainError && OWN_BUDGET.has(error.code)) return this.lead(lookup, after);
        throw error;
      });
      return this.served(lookup, loaded, joined || elsewhere ? 'coalesced' : 'miss');
    } catch (error) {
      const fallback =
        entry &&
        usableOnError(entry, this.clock.now(), this.windows) &&
        error instanceof DomainError &&
        STALE_IF.has(error.code);
      if (entry && fallback) return this.served(lookup, entry, 'stale');
      throw error;
    }
  }

  /** Drops matching entries here and in the shared store; other instances drop theirs when told. */
  async purge(match: PurgeMatch): Promise<{ shared: number; local: number }> {
    this.purges++;
    const local = this.local.purge(purgeFilter(match));
    try {
      return { shared: await this.store.purge(match), local };
    } catch (error) {
      throw new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'Local copies were purged, but the shared cache cannot be reached.',
        { cause: error },
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }

  /** One fill per key in this instance: later callers join the running one. */
  private load(lookup: CacheLookup, after: number): { fill: Promise<Fill>; joined: boolean } {
    const running = this.inflight.get(lookup.key);
    if (running) return { fill: running, joined: true };
    const fill = this.lead(lookup, after).finally(() => this.inflight.delete(lookup.key));
    this.inflight.set(lookup.key, fill);
    return { fill, joined: false };
  }

  /** Holds the key's lock and calls upstream, or waits for the instance that holds it; falls back to its own call. */
  private async lead(lookup: CacheLookup, after: number): Promise<Fill> {
    const token = randomUUID();
    if (await this.store.acquire(lookup.key, token, this.lockMs)) {
      try {
        // Double-checked: another instance may have filled and released between our miss and our lock.
        const shared = await this.store.get(lookup.key);
        if (shared && shared.storedAt > after) {
          this.remember(lookup.key, shared);
          return { entry: shared, elsewhere: true };
        }
        return { entry: await this.fill(lookup), elsewhere: false };
      } finally {
        void this.store.release(lookup.key, token);
      }
    }
    const filled = await this.store.waitForFill(lookup.key, after, this.followerWaitMs);
    if (filled) {
      this.remember(lookup.key, filled);
      return { entry: filled, elsewhere: true };
    }
    return { entry: await this.fill(lookup), elsewhere: false };
  }

  /** Stale-while-revalidate: at most one refresh per key at a time here, and none while another instance holds the lock. */
  private refreshInBackground(lookup: CacheLookup): void {
    if (this.refreshing.has(lookup.key) || this.inflight.has(lookup.key)) return;
    this.refreshing.add(lookup.key);
    const token = randomUUID();
    const refresh = async (): Promise<'ok' | 'skipped'> => {
      if (!(await this.store.acquire(lookup.key, token, this.lockMs))) return 'skipped';
      try {
        await this.fill(lookup);
        return 'ok';
      } finally {
        void this.store.release(lookup.key, token);
      }
    };
    refresh()
      .then((outcome) => this.metrics.refreshed(lookup.route, outcome))
      .catch((error: unknown) => {
        this.metrics.refreshed(lookup.route, 'failed');
        this.logger.warn(`background refresh of ${lookup.key} failed: ${(error as Error).message}`);
      })
      .finally(() => this.refreshing.delete(lookup.key));
  }

  private async fill(lookup: CacheLookup): Promise<CatalogEntry> {
    const purges = this.purges;
    const entry = await lookup.fetch();
    // A purge that came while the fetch ran may be about what it fetched: answer with it, keep nothing.
    if (purges !== this.purges) return entry;
    await this.store.set(lookup.key, entry, retentionMs(entry, this.windows));
    this.remember(lookup.key, entry);
    return entry;
  }

  private remember(key: string, entry: CatalogEntry): void {
    this.local.set(key, entry, entry.body.length, entry.storedAt + retentionMs(entry, this.windows));
  }

  private served(lookup: Pick<CacheLookup, 'route'>, entry: CatalogEntry, result: CacheResult): Served {
    this.metrics.result(lookup.route, result);
    return { entry, result };
  }
}
