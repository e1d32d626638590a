import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';

import { SANDBOX_STATE, type SandboxState } from '../shared/sandbox-state.js';
import { AccountController } from './account.controller.js';
import { ExchangeAdminController } from './exchange-admin.controller.js';
import { GrpcAdminController } from './grpc/grpc-admin.controller.js';
import { ExchangeAuthGuard } from './exchange-auth.guard.js';
import { ExchangeErrorFilter } from './exchange-error.filter.js';
import { ExchangeHealthController } from './exchange-health.controller.js';
import { ExchangeOperationInterceptor } from './exchange-operation.interceptor.js';
import { FundingController } from './funding.controller.js';
import { FundingStore } from './funding/funding-store.js';
import { OrderBookController } from './order-book.controller.js';
import { PositionsController } from './positions.controller.js';
import { FirmRateLimiter } from './rate-limit/firm-rate-limiter.js';
import { ReferenceDataController } from './reference-data.controller.js';
import { ReportsController } from './reports.controller.js';
import { TradingController } from './trading.controller.js';

/** The sandbox's exchange surface, served on its own port; every route but health needs a bearer token. */
@Module({})
export class ExchangeSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [
        AccountController,
        ExchangeAdminController,
        GrpcAdminController,
        ExchangeHealthController,
        FundingController,
        OrderBookController,
        PositionsController,
        ReferenceDataController,
        ReportsController,
        TradingController,
      ],
      module: ExchangeSurfaceModule,
      providers: [
        { provide: APP_FILTER, useClass: ExchangeErrorFilter },
        { provide: APP_GUARD, useClass: ExchangeAuthGuard },
        { provide: APP_INTERCEPTOR, useClass: ExchangeOperationInterceptor },
        {
          provide: FirmRateLimiter,
          inject: [SANDBOX_STATE],
          useFactory: (state: SandboxState) => new FirmRateLimiter(state.config.exchange.tier, state.config.exchange.limits),
        },
        {
          provide: FundingStore,
          inject: [SANDBOX_STATE],
          useFactory: (state: SandboxState) => new FundingStore(state.config.exchange.depositProcessors, state.engine),
        },
      ],
    };
  }
}
