import { Module } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG, MetricsRegistry, REDIS, type RedisClient } from '@lib/core';
import { RateLimiter, RateLimitModule } from '@lib/ratelimit';
import { UpstreamModule } from '@lib/upstream';

import { CATALOG_BUCKETS } from './budget/catalog-budgets.js';
import { CatalogCache } from './cache/catalog-cache.service.js';
import { CATALOG_STORE, type CatalogStore } from './cache/catalog-store.js';
import { MemoryCatalogStore } from './cache/memory-catalog.store.js';
import { RedisCatalogStore } from './cache/redis-catalog.store.js';
import { CatalogClient } from './client/catalog.client.js';
import { CatalogUpstream } from './client/catalog-upstream.js';
import { CatalogMetrics } from './metrics/catalog.metrics.js';
import type { CatalogConfigView } from './config/catalog.config.js';

/** The catalog client and its cache; relies on @lib/core's global config, Redis, HTTP pools, clock and metrics. */
@Module({
  exports: [CatalogClient],
  imports: [RateLimitModule, UpstreamModule],
  providers: [
    CatalogCache,
    CatalogClient,
    CatalogUpstream,
    {
      inject: [MetricsRegistry],
      provide: CatalogMetrics,
      useFactory: (registry: MetricsRegistry) => new CatalogMetrics(registry),
    },
    {
      inject: [REDIS, GATEWAY_CONFIG, Clock],
      provide: CATALOG_STORE,
      useFactory: (redis: RedisClient | null, config: CatalogConfigView, clock: Clock): CatalogStore =>
        redis
          ? new RedisCatalogStore(redis, config.redis?.keyPrefix ?? 'pmgw:', clock)
          : new MemoryCatalogStore(config.catalog.memoryEntries, () => clock.now()),
    },
  ],
})
export class CatalogModule {
  /** Hands the limiter the bucket this lib's calls spend. */
  constructor(limiter: RateLimiter) {
    limiter.buckets.declare(...CATALOG_BUCKETS);
  }
}
