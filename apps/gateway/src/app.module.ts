import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import {
  ClockModule,
  ConfigModule,
  HttpModule,
  InstanceIdModule,
  LoggingModule,
  MetricsModule,
  ReadinessModule,
  RedisModule,
} from '@lib/core';
import { FanoutModule } from '@lib/fanout';
import { RateLimitModule } from '@lib/ratelimit';
import type { DestinationStream } from 'pino';

import { AdminController } from './admin/admin.controller.js';
import { CatalogRoutesModule } from './catalog/catalog-routes.module.js';
import { AccessLog } from './common/logging/access-log.js';
import { ClientAuthGuard } from './common/guards/client-auth.guard.js';
import { ClientAuthModule } from './common/guards/client-auth.module.js';
import { ConsoleModule } from './console/console.module.js';
import { CompletedRequests } from './common/hooks/completed-requests.js';
import { PreferWait } from './common/hooks/prefer-wait.js';
import { ProblemFilter } from './common/filters/problem.filter.js';
import { ExchangeRoutesModule } from './exchange/exchange-routes.module.js';
import { HealthModule } from './health/health.module.js';
import { MeController } from './me/me.controller.js';
import { GatewayMetricsModule } from './metrics/metrics.module.js';
import { RetailRoutesModule } from './retail/retail-routes.module.js';
import { streamCapacity } from './stream/stream-capacity.js';
import { StreamRoutesModule } from './stream/stream-routes.module.js';
import type { GatewayConfig } from './config/gateway-config.schema.js';

export interface AppModuleOptions {
  logDestination?: DestinationStream;
  /** More modules in the app, their routes behind the same request gate, guard and filter (tests, embedders). */
  modules?: (Type | DynamicModule)[];
}

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      controllers: [AdminController, MeController],
      imports: [
        ClockModule,
        InstanceIdModule,
        ConfigModule.forRoot(config),
        LoggingModule.forRoot({ level: config.logging.level, destination: options.logDestination }),
        MetricsModule,
        ReadinessModule,
        RedisModule.forRoot(config.redis),
        HttpModule,
        HealthModule,
        RateLimitModule,
        ClientAuthModule,
        // Cluster keys under the gateway's Redis prefix, so instances sharing a prefix share topics.
        FanoutModule.forRoot({
          cluster: { keyPrefix: `${config.redis?.keyPrefix ?? 'pmgw:'}fanout:` },
          capacity: streamCapacity(config),
        }),
        GatewayMetricsModule,
        ExchangeRoutesModule,
        RetailRoutesModule,
        CatalogRoutesModule,
        StreamRoutesModule,
        ConsoleModule,
        ...(options.modules ?? []),
      ],
      module: AppModule,
      providers: [
        AccessLog,
        CompletedRequests,
        PreferWait,
        { provide: APP_GUARD, useExisting: ClientAuthGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
    };
  }
}
