import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';

import { BalancesController } from './balances.controller.js';
import { RetailErrorFilter } from './retail-error.filter.js';
import { RetailHealthController } from './retail-health.controller.js';
import { RetailSignatureGuard } from './retail-signature.guard.js';

/** The sandbox's retail surface, served on its own port at the root (the SDK drops path prefixes). */
@Module({})
export class RetailSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [BalancesController, RetailHealthController],
      module: RetailSurfaceModule,
      providers: [
        { provide: APP_FILTER, useClass: RetailErrorFilter },
        { provide: APP_GUARD, useClass: RetailSignatureGuard },
      ],
    };
  }
}
