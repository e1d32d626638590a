import { type DynamicModule, Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';

import type { RedisConfig } from '../config/config.schema.js';
import { Readiness } from '../health/readiness.js';
import { createRedisClient, type RedisClient } from './redis.factory.js';

/** Injection token of the shared Redis client, or `null` in single-instance mode. */
export const REDIS = Symbol('REDIS');

class RedisLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient | null,
    readiness: Readiness,
  ) {
    if (redis) readiness.register('redis', () => pingReport(redis));
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

@Global()
@Module({})
export class RedisModule {
  static forRoot(config: RedisConfig | undefined): DynamicModule {
    return {
      exports: [REDIS],
      module: RedisModule,
      providers: [
        {
          provide: REDIS,
          useFactory: () => {
            if (!config) {
              new Logger('Redis').log('No Redis configured: single-instance mode, every shared store is in memory.');
              return null;
            }
            const client = createRedisClient(config);
            client.on('error', () => undefined); // reconnects by itself; health and stores report the outage
            return client;
          },
        },
        RedisLifecycle,
      ],
    };
  }
}

async function pingReport(redis: RedisClient) {
  const started = performance.now();
  await redis.ping();
  return { status: 'up' as const, details: { latencyMs: Math.round((performance.now() - started) * 100) / 100 } };
}
