import { type CounterSeries, type MetricsRegistry, SeriesCounter } from '@lib/core';
import { Counter } from 'prom-client';

/** How a request was answered: from a fresh entry, by the upstream, stale, or from another request's call. */
export type CacheResult = 'hit' | 'miss' | 'stale' | 'coalesced';

export class CatalogMetrics {
  /** Counted on every catalog request, cache hits included (see SeriesCounter). */
  private readonly requests: SeriesCounter<'route' | 'result'>;
  private readonly upstream: Counter<'route' | 'status'>;
  private readonly refreshes: Counter<'route' | 'outcome'>;

  constructor(registry: MetricsRegistry) {
    this.requests = new SeriesCounter({
      name: 'catalog_cache_requests_total',
      help: 'Catalog requests by route and cache result (hit, miss, stale, coalesced)',
      labelNames: ['route', 'result'],
      registers: [registry],
    });
    this.upstream = new Counter({
      name: 'catalog_upstream_requests_total',
      help: 'Calls to the catalog upstream by route and answer status (0: no answer)',
      labelNames: ['route', 'status'],
      registers: [registry],
    });
    this.refreshes = new Counter({
      name: 'catalog_cache_background_refreshes_total',
      help: 'Stale-while-revalidate refreshes by route and outcome',
      labelNames: ['route', 'outcome'],
      registers: [registry],
    });
  }

  result(route: string, result: CacheResult): void {
    this.requests.seriesOf(route, result).inc();
  }

  /** The series result(route, 'hit') counts in, resolved once by a caller that counts hits itself (the catalog's hit path). */
  hitCounter(route: string): CounterSeries {
    return this.requests.seriesOf(route, 'hit');
  }

  upstreamCall(route: string, status: number): void {
    this.upstream.inc({ route, status: String(status) });
  }

  refreshed(route: string, outcome: 'ok' | 'failed' | 'skipped'): void {
    this.refreshes.inc({ route, outcome });
  }
}
