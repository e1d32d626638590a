import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, INSTANCE_ID, MetricsRegistry, newInstanceId, REDIS, type RedisClient } from '@lib/core';

import type { FanoutSettings } from './fanout.options.js';
import { FanoutHub } from './hub/fanout.hub.js';
import { TopicSourceRegistry } from './source/topic-source.registry.js';

export const FANOUT_SETTINGS = Symbol('FANOUT_SETTINGS');

/**
 * The hub and the registry stream clients register their topics in. Global, like Redis: the `/ws`
 * endpoint and the modules wiring stream clients both need the one hub. Redis, metrics and clock
 * are taken when the app provides them; without Redis the hub runs single-instance.
 */
@Global()
@Module({})
export class FanoutModule {
  static forRoot(settings: FanoutSettings = {}): DynamicModule {
    return {
      exports: [FanoutHub, TopicSourceRegistry],
      module: FanoutModule,
      providers: [
        TopicSourceRegistry,
        { provide: FANOUT_SETTINGS, useValue: settings },
        {
          provide: FanoutHub,
          inject: [
            TopicSourceRegistry,
            FANOUT_SETTINGS,
            { token: REDIS, optional: true },
            { token: MetricsRegistry, optional: true },
            { token: Clock, optional: true },
            { token: INSTANCE_ID, optional: true },
          ],
          useFactory: (
            sources: TopicSourceRegistry,
            fanout: FanoutSettings,
            redis: RedisClient | null | undefined,
            registry: MetricsRegistry | undefined,
            clock: Clock | undefined,
            instanceId: string | undefined,
          ) =>
            new FanoutHub({
              ...fanout,
              cluster: { instanceId: instanceId ?? newInstanceId(), ...fanout.cluster },
              sources,
              redis,
              registry,
              clock,
            }),
        },
      ],
    };
  }
}
