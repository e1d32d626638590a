import { Inject, Injectable } from '@nestjs/common';
import { Clock, INSTANCE_ID, MetricsRegistry } from '@lib/core';
import { type LimitsView, RateLimiter } from '@lib/ratelimit';

import { type RiskSnapshot, RiskSnapshotService } from './risk-snapshot.js';

/** The metrics the console shows; counters and gauges by label set, histograms as count and sum. */
const CONSOLE_METRICS = [
  'ratelimit_decisions_total',
  'ratelimit_upstream_429_total',
  'ratelimit_degraded',
  'ratelimit_instances',
  'gateway_exchange_token_expires_in_seconds',
  'gateway_exchange_token_age_seconds',
  'gateway_exchange_token_refreshes_total',
  'gateway_exchange_token_refresh_failures_total',
  'gateway_exchange_grpc_streams_open',
  'gateway_streams_in_use',
  'gateway_streams_capacity',
  'gateway_fanout_clients',
  'gateway_fanout_subscriptions',
  'gateway_fanout_messages_out_total',
  'gateway_fanout_conflated_frames_total',
  'gateway_fanout_dropped_clients_total',
  'gateway_fanout_delivery_lag_seconds',
  'catalog_cache_requests_total',
  'gateway_readiness',
  'gateway_risk_refusals_total',
  'gateway_kill_switch_orders_total',
] as const;

export interface MetricSample {
  labels: Record<string, string | number>;
  value: number;
}

/** One frame of the `ops.overview` topic: this instance's view, the shared budget included. */
export interface OpsSnapshot {
  instance: string;
  at: number;
  limits: LimitsView;
  metrics: Record<string, MetricSample[]>;
  risk: RiskSnapshot;
}

/** What a histogram becomes in a snapshot: its count and sum per label set (the page derives means and rates). */
function samplesOf(metric: {
  type: string;
  values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
}): MetricSample[] {
  if (metric.type !== 'histogram') return metric.values.map(({ labels, value }) => ({ labels, value }));
  return metric.values
    .filter((v) => v.metricName?.endsWith('_count') || v.metricName?.endsWith('_sum'))
    .map((v) => ({
      labels: { ...v.labels, series: v.metricName?.endsWith('_count') ? 'count' : 'sum' },
      value: v.value,
    }));
}

@Injectable()
export class OpsSnapshotService {
  constructor(
    @Inject(INSTANCE_ID) private readonly instance: string,
    private readonly registry: MetricsRegistry,
    private readonly limiter: RateLimiter,
    private readonly risk: RiskSnapshotService,
    private readonly clock: Clock,
  ) {}

  async take(): Promise<OpsSnapshot> {
    const [limits, all, risk] = await Promise.all([
      this.limiter.view(),
      this.registry.getMetricsAsJSON(),
      this.risk.take(),
    ]);
    const wanted = new Set<string>(CONSOLE_METRICS);
    const metrics = Object.fromEntries(
      all
        .filter((m) => wanted.has(m.name))
        .map((m) => [m.name, samplesOf(m as unknown as Parameters<typeof samplesOf>[0])]),
    );
    return { instance: this.instance, at: this.clock.wallNow(), limits, metrics, risk };
  }
}
