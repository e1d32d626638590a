import { type DynamicModule, Module } from '@nestjs/common';

import { CatalogHealthController } from './catalog-health.controller.js';

/** The sandbox's catalog surface, served on its own port. */
@Module({})
export class CatalogSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [CatalogHealthController],
      module: CatalogSurfaceModule,
    };
  }
}
