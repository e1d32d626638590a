import { Counter, Gauge } from 'prom-client';

import type { MetricsRegistry } from '../metrics/metrics.registry.js';

/** `lane|origin|c or t|id` → its parts (see Bulkheads). */
function partsOf(key: string): { lane: string; pool: string; kind: string; id: string } {
  const [lane = '', pool = '', kind = '', ...id] = key.split('|');
  return { lane, pool, kind, id: id.join('|') };
}

/** Prometheus view of the bulkheads: calls in flight per team and pool (read at scrape), and refusals per bound and team. */
export class BulkheadMetrics {
  private readonly refusals: Counter<'cap' | 'team'>;

  constructor(registry: MetricsRegistry, inFlight: () => ReadonlyMap<string, number>) {
    const registers = [registry];
    this.refusals =
      (registry.getSingleMetric('gateway_upstream_in_flight_refused_total') as Counter<'cap' | 'team'> | undefined) ??
      new Counter({
        name: 'gateway_upstream_in_flight_refused_total',
        help: 'Upstream calls refused 429 IN_FLIGHT_LIMITED, by bound (cap) and team.',
        labelNames: ['cap', 'team'],
        registers,
      });
    if (!registry.getSingleMetric('gateway_upstream_in_flight')) {
      new Gauge({
        name: 'gateway_upstream_in_flight',
        help: 'Upstream calls in flight on this instance, by lane (ordinary or blocking), pool (origin) and team.',
        labelNames: ['lane', 'pool', 'team'],
        registers,
        collect() {
          this.reset();
          for (const [key, count] of inFlight()) {
            const { lane, pool, kind, id } = partsOf(key);
            if (kind === 't') this.set({ lane, pool, team: id }, count);
          }
        },
      });
    }
  }

  refused(cap: string, team: string | undefined): void {
    this.refusals.inc({ cap, team: team ?? '' });
  }
}
