import { Injectable } from '@nestjs/common';
import { MetricsRegistry, Readiness, type ReadinessStatus } from '@lib/core';
import { Gauge } from 'prom-client';

const LEVEL: Record<ReadinessStatus, number> = { down: 0, degraded: 1, up: 2 };

/** Readiness as a metric, read at scrape: what /health/ready says, per check, for alerts and dashboards. */
@Injectable()
export class ReadinessMetrics {
  constructor(registry: MetricsRegistry, readiness: Readiness) {
    new Gauge({
      name: 'gateway_readiness',
      help: 'Each readiness check at scrape time: 2 up, 1 degraded (ready, but says so), 0 down (not ready)',
      labelNames: ['check'],
      registers: [registry],
      async collect() {
        const report = await readiness.report();
        this.reset();
        for (const [check, result] of Object.entries(report.checks)) this.set({ check }, LEVEL[result.status]);
      },
    });
  }
}
