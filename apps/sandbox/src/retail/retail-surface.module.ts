import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';

import { SANDBOX_STATE, type SandboxState } from '../shared/sandbox-state.js';
import { RetailActivities } from './retail-activities.js';
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
import { RetailWebSockets } from './retail-ws.server.js';
import { RetailWsMessages } from './retail-ws.messages.js';

/** The sandbox's retail surface, served on its own port at the root (the SDK drops path prefixes), REST and both channels. */
@Module({})
export class RetailSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [RetailHealthController, RetailMarketsController, RetailOrdersController, RetailPortfolioController],
      module: RetailSurfaceModule,
      providers: [
        { provide: APP_FILTER, useClass: RetailErrorFilter },
        // Guards run in this order: the signature names the key the limits count against.
        { provide: APP_GUARD, useClass: RetailSignatureGuard },
        { provide: APP_GUARD, useClass: RetailRateLimitGuard },
        { provide: RetailRecords, inject: [SANDBOX_STATE], useFactory: (s: SandboxState) => new RetailRecords(s.engine, s.retail) },
        { provide: RetailPortfolioRecords, inject: [SANDBOX_STATE, RetailRecords], useFactory: (s: SandboxState, r: RetailRecords) => new RetailPortfolioRecords(s.engine, r) },
        { provide: RetailActivities, inject: [SANDBOX_STATE, RetailRecords], useFactory: (s: SandboxState, r: RetailRecords) => new RetailActivities(s.engine, s.retail, r) },
        { provide: RetailOrderDesk, inject: [SANDBOX_STATE, RetailRecords], useFactory: (s: SandboxState, r: RetailRecords) => new RetailOrderDesk(s.engine, s.retail, r) },
        {
          provide: RetailWsMessages,
          inject: [SANDBOX_STATE, RetailRecords, RetailPortfolioRecords],
          useFactory: (s: SandboxState, r: RetailRecords, p: RetailPortfolioRecords) => new RetailWsMessages(s.engine, r, p),
        },
        RetailWebSockets,
      ],
    };
  }
}
