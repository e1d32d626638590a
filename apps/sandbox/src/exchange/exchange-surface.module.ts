import { type DynamicModule, Module } from '@nestjs/common';

import { ExchangeHealthController } from './exchange-health.controller.js';

/** The sandbox's exchange surface, served on its own port. */
@Module({})
export class ExchangeSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [ExchangeHealthController],
      module: ExchangeSurfaceModule,
    };
  }
}
