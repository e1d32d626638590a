import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';

import { RetailErrorFilter } from '../retail/retail-error.filter.js';
import { CatalogData } from './catalog-data.service.js';
import { CatalogEventsController } from './catalog-events.controller.js';
import { CatalogHealthController } from './catalog-health.controller.js';
import { CatalogMarketsController } from './catalog-markets.controller.js';
import { CatalogSportsController } from './catalog-sports.controller.js';
import { CatalogSurfaceGuard } from './catalog-surface.guard.js';

/**
 * The sandbox's catalog surface, served on its own port at the root (the official client drops path
 * prefixes). Errors are `{message}` like the retail surface's (upstream-facts "Errors").
 */
@Module({})
export class CatalogSurfaceModule {
  static forRoot(): DynamicModule {
    return {
      controllers: [CatalogEventsController, CatalogHealthController, CatalogMarketsController, CatalogSportsController],
      module: CatalogSurfaceModule,
      providers: [
        CatalogData,
        { provide: APP_FILTER, useClass: RetailErrorFilter },
        { provide: APP_GUARD, useClass: CatalogSurfaceGuard },
      ],
    };
  }
}
