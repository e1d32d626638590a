import { Test } from '@nestjs/testing';
import { CATALOG_BUDGETS } from '@lib/catalog';
import { ConfigModule, HttpModule, MetricsModule, Readiness, ReadinessModule, RedisModule } from '@lib/core';
import { RETAIL_BUDGETS } from '@lib/retail';

import { resolveLimits, testRedisUrl, uniquePrefix } from '../test/limiter.fixture.js';
import { RateLimiter, RateLimitModule, budgetFor } from './index.js';

describe(RateLimitModule.name, () => {
  async function boot(redis: boolean) {
    // This spec checks the wiring, not lateness (rate-limiter.redis.spec.ts does): a decision's age limit (50 ms by
    // default, plus the measured round trip) and the command timeout are set far above what a busy machine's event
    // loop can stall, so a late Redis answer, refused by design, cannot stand in for the one this checks.
    const { limits, teams, http, bulkheads, clients, buckets } = resolveLimits({ maxDecisionAgeMs: 30_000 }, [
      { id: 'desk', shares: { retail: 0.5 } },
    ]);
    const redisConfig = redis
      ? {
          mode: 'single' as const,
          url: testRedisUrl(process.env.TEST_REDIS_URL),
          keyPrefix: uniquePrefix(),
          commandTimeoutMs: 10_000,
          connectTimeoutMs: 10_000,
        }
      : undefined;
    // Only the fields the limiter and the upstream pools (HttpModule: pools, bulkheads) read; the rest of the gateway config is not its business.
    const config = { limits, teams, redis: redisConfig, http, bulkheads, clients } as Parameters<
      typeof ConfigModule.forRoot
    >[0];
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        HttpModule,
        MetricsModule,
        ReadinessModule,
        RedisModule.forRoot(redisConfig),
        RateLimitModule,
      ],
    }).compile();
    moduleRef.useLogger(false);
    // What the surface modules do at start: hand the limiter the buckets their calls spend.
    moduleRef.get(RateLimiter).buckets.declare(...buckets);
    return moduleRef.init();
  }

  it('provides the limiter on the shared Redis from the global config', async () => {
    const app = await boot(true);
    try {
      const sut = app.get(RateLimiter);
      const decision = await sut.take(budgetFor(RETAIL_BUDGETS.createOrder, 'desk'));
      expect(decision).toMatchObject({ allowed: true, mode: 'redis' });
      expect(decision.readings.map((r) => r.bucket)).toEqual([
        'retail.orders.create',
        'retail.all',
        'retail.key',
        'retail.orders.create',
        'retail.all',
        'retail.key',
      ]);
      expect((await app.get(Readiness).report()).checks.ratelimit.status).toBe('up');
    } finally {
      await app.close();
    }
  });

  it('runs single-instance when no Redis is configured', async () => {
    const app = await boot(false);
    try {
      expect(app.get(RateLimiter).status().mode).toBe('single-instance');
      expect((await app.get(RateLimiter).take(budgetFor(CATALOG_BUDGETS.publicCall, undefined))).allowed).toBe(true);
    } finally {
      await app.close();
    }
  });
});
