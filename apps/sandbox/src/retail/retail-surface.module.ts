import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';

import { MatchingEngine } from '../engine/index.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { RetailActivities } from './retail-activities.js';
import { RetailAnswerFaultInterceptor } from './retail-answer-fault.interceptor.js';
import { RetailErrorFilter } from './retail-error.filter.js';
import { RetailHealthController } from './retail-health.controller.js';
import { RetailMarketsController } from './retail-markets.controller.js';
import { RetailOrderDesk } from './retail-order-desk.js';
import { RetailOrdersController } from './retail-orders.controller.js';
import { RetailPortfolioController } from './retail-portfolio.controller.js';
import { RetailPortfolioRecords } from './retail-portfolio.records.js';
import { RetailRateLimitGuard } from './retail-rate-limit.guard.js';
import { RetailRecords } from './retail-records.js';
import { RetailSignatureGuard } from './retail-signature.guard.js';
import { RETAIL_SIGNATURE, type RetailSignatureParts } from './retail-signature.js';
import { RetailVenue } from './retail-venue.js';
import { RetailWsMessages } from './retail-ws.messages.js';
import { RetailWebSockets } from './retail-ws.server.js';

/** What the retail surface is handed by the composition root. */
export interface RetailSurfaceParts {
  readonly signature: RetailSignatureParts;
  readonly engine: MatchingEngine;
  readonly retail: RetailVenue;
  readonly clock: SandboxClock;
  readonly counters: SandboxCounters;
}

/** The sandbox's retail surface, served on its own port at the root (the SDK drops path prefixes), REST and both channels. */
@Module({})
export class RetailSurfaceModule {
  static forRoot(parts: RetailSurfaceParts): DynamicModule {
    const { engine, retail } = parts;
    return {
      controllers: [RetailHealthController, RetailMarketsController, RetailOrdersController, RetailPortfolioController],
      module: RetailSurfaceModule,
      providers: [
        { provide: APP_FILTER, useClass: RetailErrorFilter },
        // Guards run in this order: the signature names the key the limits count against.
        { provide: APP_GUARD, useClass: RetailSignatureGuard },
        { provide: APP_GUARD, useClass: RetailRateLimitGuard },
        { provide: APP_INTERCEPTOR, useClass: RetailAnswerFaultInterceptor },
        { provide: RETAIL_SIGNATURE, useValue: parts.signature },
        { provide: MatchingEngine, useValue: engine },
        { provide: RetailVenue, useValue: retail },
        { provide: SandboxClock, useValue: parts.clock },
        { provide: SandboxCounters, useValue: parts.counters },
        { provide: RetailRecords, useFactory: () => new RetailRecords(engine, retail) },
        {
          provide: RetailPortfolioRecords,
          inject: [RetailRecords],
          useFactory: (r: RetailRecords) => new RetailPortfolioRecords(engine, r),
        },
        {
          provide: RetailActivities,
          inject: [RetailRecords],
          useFactory: (r: RetailRecords) => new RetailActivities(engine, retail, r),
        },
        {
          provide: RetailOrderDesk,
          inject: [RetailRecords],
          useFactory: (r: RetailRecords) => new RetailOrderDesk(engine, retail, r),
        },
        {
          provide: RetailWsMessages,
          inject: [RetailRecords, RetailPortfolioRecords],
          useFactory: (r: RetailRecords, p: RetailPortfolioRecords) => new RetailWsMessages(engine, r, p),
        },
        RetailWebSockets,
      ],
    };
  }
}
