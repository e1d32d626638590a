import { type DynamicModule, Module } from '@nestjs/common';

import { RetailHealthController } from './retail-health.controller.js';

/** The sandbox's retail surface, served on its own port. */
@Module({})
export class RetailSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [RetailHealthController],
      module: RetailSurfaceModule,
    };
  }
}
