import { Module } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG, INSTANCE_ID, MetricsRegistry, Readiness, REDIS, type RedisClient } from '@lib/core';

import type { TeamConfig } from './budget/limits.types.js';
import { PriorityLane } from './budget/priority-lane.js';
import type { LimitsConfig } from './config/limits.config.js';
import { BudgetGate } from './gate/budget-gate.js';
import { RateLimiter } from './rate-limiter.service.js';

/** What the limiter reads of the config: its section, the teams' shares, the retail accounts (per-key buckets) and Redis's prefix. */
interface RateLimitConfigView {
  limits: LimitsConfig;
  teams: readonly TeamConfig[];
  environment: string;
  environments?: Partial<Record<string, { retailAccounts: readonly { name: string }[] }>>;
  redis?: { keyPrefix: string };
}

/**
 * Provides the shared upstream budget. Relies on @lib/core's global GATEWAY_CONFIG, REDIS,
 * MetricsRegistry and Readiness; Clock is optional (apps that do not provide it get the system clock).
 */
@Module({
  exports: [BudgetGate, PriorityLane, RateLimiter],
  providers: [
    BudgetGate,
    PriorityLane,
    {
      inject: [
        GATEWAY_CONFIG,
        REDIS,
        MetricsRegistry,
        Readiness,
        { token: Clock, optional: true },
        { token: INSTANCE_ID, optional: true },
      ],
      provide: RateLimiter,
      useFactory: (
        config: RateLimitConfigView,
        redis: RedisClient | null,
        metrics: MetricsRegistry,
        readiness: Readiness,
        clock: Clock | undefined,
        instanceId: string | undefined,
      ) =>
        new RateLimiter({
          limits: config.limits,
          teams: config.teams,
          accounts: (config.environments?.[config.environment]?.retailAccounts ?? []).map((a) => a.name),
          redis,
          keyPrefix: config.redis?.keyPrefix,
          metrics,
          readiness,
          clock,
          instanceId,
        }),
    },
  ],
})
export class RateLimitModule {}
