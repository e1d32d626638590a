import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';

import { AccountController } from './account.controller.js';
import { ExchangeAuthGuard } from './exchange-auth.guard.js';
import { ExchangeErrorFilter } from './exchange-error.filter.js';
import { ExchangeHealthController } from './exchange-health.controller.js';
import { PositionsController } from './positions.controller.js';

/** The sandbox's exchange surface, served on its own port; every route but health needs a bearer token. */
@Module({})
export class ExchangeSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [AccountController, ExchangeHealthController, PositionsController],
      module: ExchangeSurfaceModule,
      providers: [
        { provide: APP_FILTER, useClass: ExchangeErrorFilter },
        { provide: APP_GUARD, useClass: ExchangeAuthGuard },
      ],
    };
  }
}
