import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';

import type { SandboxConfig } from '../config/sandbox-config.schema.js';
import { MatchingEngine } from '../engine/index.js';
import { FaultBoard } from '../shared/fault-board.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { AccountController } from './account.controller.js';
import { ExchangeAdminController } from './exchange-admin.controller.js';
import { ExchangeAuthGuard } from './exchange-auth.guard.js';
import { EXCHANGE_AUTHORIZATION, type ExchangeAuthorizationParts } from './exchange-authorization.js';
import { ExchangeErrorFilter } from './exchange-error.filter.js';
import { ExchangeHealthController } from './exchange-health.controller.js';
import { ExchangeOperationInterceptor } from './exchange-operation.interceptor.js';
import { FundingController } from './funding.controller.js';
import { FundingStore } from './funding/funding-store.js';
import { DropCopyFeed } from './grpc/dropcopy/drop-copy-feed.js';
import { GrpcAdminController } from './grpc/grpc-admin.controller.js';
import { MarketDataStreamRegistry } from './grpc/market-data-stream.registry.js';
import { StreamPool } from './grpc/stream-pool.js';
import { OrderBookController } from './order-book.controller.js';
import { PositionsController } from './positions.controller.js';
import { FirmRateLimiter } from './rate-limit/firm-rate-limiter.js';
import { ReferenceDataController } from './reference-data.controller.js';
import { ReportsController } from './reports.controller.js';
import { TradingController } from './trading.controller.js';

/** What the exchange's REST surface is handed by the composition root (its gRPC server: ExchangeGrpcParts). */
export interface ExchangeSurfaceParts {
  readonly config: SandboxConfig['exchange'];
  readonly authorization: ExchangeAuthorizationParts;
  readonly engine: MatchingEngine;
  readonly clock: SandboxClock;
  readonly counters: SandboxCounters;
  readonly faults: FaultBoard;
  /** For the operator's gRPC routes: open streams, cuts, drop-copy faults. */
  readonly streams: StreamPool;
  readonly marketDataStreams: MarketDataStreamRegistry;
  readonly dropCopy: DropCopyFeed;
}

/** The sandbox's exchange surface, served on its own port; every route but health needs a bearer token. */
@Module({})
export class ExchangeSurfaceModule {
  static forRoot(parts: ExchangeSurfaceParts): DynamicModule {
    const { config, engine } = parts;
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
        { provide: EXCHANGE_AUTHORIZATION, useValue: parts.authorization },
        { provide: MatchingEngine, useValue: engine },
        { provide: SandboxClock, useValue: parts.clock },
        { provide: SandboxCounters, useValue: parts.counters },
        { provide: FaultBoard, useValue: parts.faults },
        { provide: StreamPool, useValue: parts.streams },
        { provide: MarketDataStreamRegistry, useValue: parts.marketDataStreams },
        { provide: DropCopyFeed, useValue: parts.dropCopy },
        { provide: FirmRateLimiter, useFactory: () => new FirmRateLimiter(config.tier, config.limits) },
        { provide: FundingStore, useFactory: () => new FundingStore(config.depositProcessors, engine) },
      ],
    };
  }
}
