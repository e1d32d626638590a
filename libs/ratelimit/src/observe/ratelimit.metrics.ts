import { type CounterSeries, type MetricsRegistry, SeriesCounter } from '@lib/core';
import { Counter, Gauge, Histogram } from 'prom-client';

import type { Decision, LimitedBy } from '../budget/decision.js';
import type { TakePlan } from '../budget/take-plan.js';

const REFUSAL_OUTCOME: Record<LimitedBy, string> = {
  bucket: 'limited',
  'team-share': 'team_share',
  'cool-down': 'cool_down',
  unavailable: 'unavailable',
};

/** `scope_key`: the retail account of a per-key bucket, the egress name of a per-IP one, else empty. */
type DecisionLabels = 'bucket' | 'scope_key' | 'team' | 'outcome';

/** Prometheus metrics of the budget, registered on the application's registry. */
export class RateLimitMetrics {
  /** Counted on every budget decision (see SeriesCounter). */
  private readonly decisions: SeriesCounter<DecisionLabels>;
  private readonly waits: Histogram<'class'>;
  private readonly upstream429: Counter<'bucket' | 'key'>;
  private readonly degraded: Gauge;
  private readonly instances: Gauge;
  /** The allowed series of each plan's upstream buckets, resolved once per plan. */
  private readonly allowedChildren = new WeakMap<TakePlan, CounterSeries[]>();

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.decisions =
      reuse(registry, 'ratelimit_decisions_total') ??
      new SeriesCounter({
        name: 'ratelimit_decisions_total',
        help: 'Budget decisions by upstream bucket, scope key, team and outcome.',
        labelNames: ['bucket', 'scope_key', 'team', 'outcome'],
        registers,
      });
    this.waits =
      reuse(registry, 'ratelimit_wait_seconds') ??
      new Histogram({
        name: 'ratelimit_wait_seconds',
        help: 'Time requests spent queued for budget before being allowed.',
        labelNames: ['class'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers,
      });
    this.upstream429 =
      reuse(registry, 'ratelimit_upstream_429_total') ??
      new Counter({
        name: 'ratelimit_upstream_429_total',
        help: 'Upstream rate-limit refusals reported back (cool-downs started), by bucket and storage key (scope key included).',
        labelNames: ['bucket', 'key'],
        registers,
      });
    this.degraded =
      reuse(registry, 'ratelimit_degraded') ??
      new Gauge({
        name: 'ratelimit_degraded',
        help: '1 while decisions are made from local buckets because Redis is unreachable.',
        registers,
      });
    this.instances =
      reuse(registry, 'ratelimit_instances') ??
      new Gauge({
        name: 'ratelimit_instances',
        help: 'Gateway instances sharing the budget, as last counted.',
        registers,
      });
  }

  decision(plan: TakePlan, decision: Decision): void {
    const team = plan.team ?? '';
    if (decision.allowed) {
      let children = this.allowedChildren.get(plan);
      if (!children) {
        children = plan.cells
          .slice(0, plan.upstreamCount)
          .map((c) => this.decisions.seriesOf(c.bucket.name, c.scopeKey ?? '', team, 'allowed'));
        this.allowedChildren.set(plan, children);
      }
      for (const child of children) child.inc();
      return;
    }
    this.decisions
      .seriesOf(decision.bucket, decision.scopeKey ?? '', team, REFUSAL_OUTCOME[decision.limitedBy ?? 'bucket'])
      .inc();
  }

  waited(klass: string, ms: number): void {
    this.waits.labels(klass).observe(ms / 1000);
  }

  upstreamRefusal(bucket: string, key: string): void {
    this.upstream429.labels(bucket, key).inc();
  }

  setDegraded(degraded: boolean): void {
    this.degraded.set(degraded ? 1 : 0);
  }

  setInstances(count: number): void {
    this.instances.set(count);
  }
}

function reuse<T>(registry: MetricsRegistry, name: string): T | undefined {
  return registry.getSingleMetric(name) as T | undefined;
}
