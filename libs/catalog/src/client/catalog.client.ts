import { Injectable } from '@nestjs/common';
import type { CounterSeries } from '@lib/core';

import { CatalogCache, type Served } from '../cache/catalog-cache.service.js';
import type { CatalogEntry } from '../cache/catalog-entry.js';
import type { PurgeMatch } from '../cache/catalog-store.js';
import { type CanonicalValue, canonicalKey, upstreamTarget } from '../cache/canonical-key.js';
import { type CatalogParams, type CatalogQuery, type CatalogRouteName, pathOf } from '../routes/catalog-routes.js';
import { CatalogUpstream } from './catalog-upstream.js';

export interface CatalogCallContext {
  requestId?: string;
  team?: string;
}

/**
 * The typed catalog client: validated parameters in, an upstream answer (fresh, cached, stale or
 * shared with concurrent callers) out. Callers validate with the route's schemas first.
 */
@Injectable()
export class CatalogClient {
  constructor(
    private readonly cache: CatalogCache,
    private readonly upstream: CatalogUpstream,
  ) {}

  /**
   * A fresh copy in this instance's memory is answered at once, not as a promise: a cache hit, the most
   * frequent answer, then costs no promise and no microtask. Anything else goes through the cache tiers.
   */
  get<R extends CatalogRouteName>(
    route: R,
    params: CatalogParams<R>,
    query: CatalogQuery<R>,
    context: CatalogCallContext = {},
  ): Served | Promise<Served> {
    const target = upstreamTarget(
      pathOf(route, params as Record<string, string>),
      query as Record<string, CanonicalValue>,
    );
    const key = canonicalKey(route, target);
    return (
      this.cache.peek({ route, key }) ??
      this.cache.get({ route, key, fetch: () => this.upstream.fetch({ route, target, ...context }) })
    );
  }

  /** The cache key get() uses for these validated parameters. */
  keyOf<R extends CatalogRouteName>(route: R, params: CatalogParams<R>, query: CatalogQuery<R>): string {
    return canonicalKey(
      route,
      upstreamTarget(pathOf(route, params as Record<string, string>), query as Record<string, CanonicalValue>),
    );
  }

  /**
   * The fresh entry get() would answer from this process's memory without waiting, at `now` (the
   * caller's one clock read), counted in `hits` (the series of hitCounter(route), which get() counts
   * a hit of that route in); undefined (nothing counted) when get() would have to do more.
   */
  freshHit(key: string, now: number, hits: CounterSeries): CatalogEntry | undefined {
    const entry = this.cache.freshEntry(key, now);
    if (entry !== undefined) hits.inc();
    return entry;
  }

  /** The series a hit of this route is counted in, resolved once: freshHit's `hits`. */
  hitCounter(route: CatalogRouteName): CounterSeries {
    return this.cache.hitCounter(route);
  }

  purge(match: PurgeMatch): Promise<{ shared: number; local: number }> {
    return this.cache.purge(match);
  }
}
