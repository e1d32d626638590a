import { Gauge, type Registry } from 'prom-client';

import type { PoolUsage } from './stream-capacity.types.js';

type Series = [labels: Record<string, string>, value: number][];

/**
 * Streams in use, cluster-wide, read from the ledger at scrape time (gauges collected together share
 * the read in flight). Labels are bounded: pools and kinds are registered in code, teams come from config.
 */
export function registerStreamCapacityMetrics(registry: Registry, usage: () => Promise<PoolUsage[]>): void {
  let pending: Promise<PoolUsage[]> | undefined;
  const read = () => (pending ??= usage().finally(() => setImmediate(() => (pending = undefined))));
  const gauge = (name: string, help: string, labelNames: string[], series: (pool: PoolUsage) => Series) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        const pools = await read().catch(() => []);
        for (const pool of pools) for (const [labels, value] of series(pool)) this.set(labels, value);
      },
    });
  gauge('gateway_streams_capacity', 'Upstream streams the teams may hold together, by pool', ['pool'], (p) => [
    [{ pool: p.pool }, p.capacity],
  ]);
  gauge('gateway_streams_in_use', 'Upstream streams held cluster-wide, by pool and kind', ['pool', 'kind'], (p) =>
    Object.entries(p.byKind).map(([kind, count]) => [{ pool: p.pool, kind }, count]),
  );
  gauge(
    'gateway_streams_team_in_use',
    'Upstream streams held cluster-wide, by the team charged for them',
    ['pool', 'team'],
    (p) => Object.entries(p.byTeam).map(([team, { inUse }]) => [{ pool: p.pool, team }, inUse]),
  );
  gauge(
    'gateway_streams_team_share',
    'Upstream streams each team may hold (its share of the pool)',
    ['pool', 'team'],
    (p) => Object.entries(p.byTeam).map(([team, { share }]) => [{ pool: p.pool, team }, share]),
  );
}
