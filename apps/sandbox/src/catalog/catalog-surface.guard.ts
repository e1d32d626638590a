import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import type { FastifyRequest } from 'fastify';

import type { SandboxConfig } from '../config/sandbox-config.schema.js';
import { RetailRateLimitedError } from '../retail/retail-rate-limit.guard.js';
import { FaultBoard } from '../shared/fault-board.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { SurfaceError } from '../shared/surface-error.js';
import { type BucketState, takeToken } from '../shared/token-bucket.js';
import type { CatalogRouteName } from './wire/catalog-query.wire.js';

const CATALOG_ROUTE = 'sandbox:catalog-route';

/** Nest token of the catalog surface's slice of the sandbox config. */
export const CATALOG_CONFIG = Symbol('CATALOG_CONFIG');

/** Names a handler's route for the counters (`catalog.<route>`), the same names the gateway uses. */
export const CatalogRoute = (name: CatalogRouteName) => SetMetadata(CATALOG_ROUTE, name);

/**
 * No authentication (spec §5.3). Counts every catalog request, so tests can count upstream calls;
 * refuses a client address past its 20 requests/s (upstream-facts, configurable) with 429 and
 * Retry-After, counted as `catalog.rateLimited` and `catalog.rateLimited.<address>`; the
 * catalogLatencyMs fault delays every answer and catalogDown turns them all into 503s.
 */
@Injectable()
export class CatalogSurfaceGuard implements CanActivate {
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    @Inject(CATALOG_CONFIG) private readonly config: SandboxConfig['catalog'],
    private readonly counters: SandboxCounters,
    private readonly faults: FaultBoard,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.reflector.get<CatalogRouteName | undefined>(CATALOG_ROUTE, context.getHandler());
    if (!route) return true;
    this.limit(context.switchToHttp().getRequest<FastifyRequest>().ip);
    this.counters.count('catalog.requests');
    this.counters.count(`catalog.${route}`);
    const { catalogDown, catalogLatencyMs } = this.faults.active;
    if (catalogLatencyMs) await new Promise((resolve) => setTimeout(resolve, catalogLatencyMs));
    if (catalogDown) throw new SurfaceError(503, 'catalog gateway unavailable');
    return true;
  }

  private limit(address: string): void {
    const perSecond = this.config.requestsPerSecondPerAddress;
    if (perSecond === 'off') return;
    const answer = takeToken(this.buckets, address, { limit: perSecond, perSeconds: 1 }, Date.now());
    if (answer.ok) return;
    this.counters.count('catalog.rateLimited');
    this.counters.count(`catalog.rateLimited.${address}`);
    // The catalog answers errors in the retail gateway's shape: `{status: 429, message}` with Retry-After.
    throw new RetailRateLimitedError(Math.max(1, Math.ceil(answer.retryAfterMs / 1000)));
  }
}
