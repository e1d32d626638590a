import { type DynamicModule, Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';

import type { RedisConfig } from '../config/config.schema.js';
import { Readiness, type ReadinessReport } from '../health/readiness.js';
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

/**
 * A Redis outage degrades the gateway (shared stores fall back to local ones) rather than taking it
 * out of rotation, so a failed ping is `degraded`, not `down`.
 */
async function pingReport(redis: RedisClient): Promise<ReadinessReport> {
  const started = performance.now();
  try {
    await redis.ping();
    return { status: 'up', details: { latencyMs: Math.round((performance.now() - started) * 100) / 100 } };
  } catch {
    return { status: 'degraded', details: { reason: 'Redis unreachable; shared state is local to this instance' } };
  }
}
