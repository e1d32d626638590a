import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';

import type { SandboxConfig } from '../config/sandbox-config.schema.js';
import { MatchingEngine } from '../engine/index.js';
import { RetailErrorFilter } from '../retail/retail-error.filter.js';
import { FaultBoard } from '../shared/fault-board.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { CatalogData } from './catalog-data.service.js';
import { CatalogEventsController } from './catalog-events.controller.js';
import { CatalogHealthController } from './catalog-health.controller.js';
import { CatalogMarketsController } from './catalog-markets.controller.js';
import { CatalogSportsController } from './catalog-sports.controller.js';
import { CATALOG_CONFIG, CatalogSurfaceGuard } from './catalog-surface.guard.js';

/** What the catalog surface is handed by the composition root. */
export interface CatalogSurfaceParts {
  readonly config: SandboxConfig['catalog'];
  readonly engine: MatchingEngine;
  readonly counters: SandboxCounters;
  readonly faults: FaultBoard;
}

/**
 * The sandbox's catalog surface, served on its own port at the root (the official client drops path
 * prefixes). Errors are `{message}` like the retail surface's (upstream-facts "Errors").
 */
@Module({})
export class CatalogSurfaceModule {
  static forRoot(parts: CatalogSurfaceParts): DynamicModule {
    return {
      controllers: [
        CatalogEventsController,
        CatalogHealthController,
        CatalogMarketsController,
        CatalogSportsController,
      ],
      module: CatalogSurfaceModule,
      providers: [
        CatalogData,
        { provide: APP_FILTER, useClass: RetailErrorFilter },
        { provide: APP_GUARD, useClass: CatalogSurfaceGuard },
        { provide: CATALOG_CONFIG, useValue: parts.config },
        { provide: MatchingEngine, useValue: parts.engine },
        { provide: SandboxCounters, useValue: parts.counters },
        { provide: FaultBoard, useValue: parts.faults },
      ],
    };
  }
}
