import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@lib/core';
import { RateLimiter } from '@lib/ratelimit';
import { Gauge } from 'prom-client';

/**
 * How much of each upstream bucket is in use, read from the limiter's view at scrape (the shared
 * state in Redis mode), per bucket and scope key (a retail account, for per-key buckets): 1 − level / capacity. The alert "budget above 90 % for a minute" reads it.
 */
@Injectable()
export class BudgetUseMetrics {
  constructor(registry: MetricsRegistry, limiter: RateLimiter) {
    new Gauge({
      name: 'gateway_budget_in_use_ratio',
      help: 'Fraction of each upstream bucket in use at scrape time (1 - level / capacity)',
      labelNames: ['bucket', 'scope_key'],
      registers: [registry],
      async collect() {
        const view = await limiter.view();
        this.reset();
        for (const bucket of view.buckets) {
          if (bucket.capacity > 0)
            this.set(
              { bucket: bucket.bucket, scope_key: bucket.scopeKey ?? '' },
              Math.min(1, Math.max(0, 1 - bucket.level / bucket.capacity)),
            );
        }
      },
    });
  }
}
