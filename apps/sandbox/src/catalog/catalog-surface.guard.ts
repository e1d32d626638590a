import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { SANDBOX_STATE, type SandboxState } from '../shared/sandbox-state.js';
import { SurfaceError } from '../shared/surface-error.js';
import type { CatalogRouteName } from './wire/catalog-query.wire.js';

const CATALOG_ROUTE = 'sandbox:catalog-route';

/** Names a handler's route for the counters (`catalog.<route>`), the same names the gateway uses. */
export const CatalogRoute = (name: CatalogRouteName) => SetMetadata(CATALOG_ROUTE, name);

/**
 * No authentication (spec §5.3). Counts every catalog request, so tests can count upstream calls;
 * the catalogLatencyMs fault delays every answer and catalogDown turns them all into 503s.
 */
@Injectable()
export class CatalogSurfaceGuard implements CanActivate {
  constructor(
    @Inject(SANDBOX_STATE) private readonly state: SandboxState,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.reflector.get<CatalogRouteName | undefined>(CATALOG_ROUTE, context.getHandler());
    if (!route) return true;
    this.state.count('catalog.requests');
    this.state.count(`catalog.${route}`);
    const { catalogDown, catalogLatencyMs } = this.state.faults;
    if (catalogLatencyMs) await new Promise((resolve) => setTimeout(resolve, catalogLatencyMs));
    if (catalogDown) throw new SurfaceError(503, 'catalog gateway unavailable');
    return true;
  }
}
