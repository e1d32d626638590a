import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';

import { SandboxCounters } from '../shared/sandbox-counters.js';
import { SurfaceError } from '../shared/surface-error.js';
import type { RetailBucket } from './retail-rate-limits.js';
import { RetailVenue } from './retail-venue.js';

const RETAIL_ROUTE = 'sandbox:retail-route';

interface RetailRouteSpec {
  name: string;
  bucket?: RetailBucket;
}

/** The route name a handler was given with RetailRoute ('unnamed' without one). */
export function retailRouteName(reflector: Reflector, context: ExecutionContext): string {
  return (
    reflector.getAllAndOverride<RetailRouteSpec | undefined>(RETAIL_ROUTE, [context.getHandler(), context.getClass()])
      ?.name ?? 'unnamed'
  );
}

/** Names a retail route for the per-route counters and says which spec 8 limit it also counts against. */
export const RetailRoute = (name: string, bucket?: RetailBucket) =>
  SetMetadata(RETAIL_ROUTE, { name, ...(bucket ? { bucket } : {}) } satisfies RetailRouteSpec);

/** upstream-facts "Retail extras": the 429 body is `{"status": 429, "message": "Too Many Requests"}`, with Retry-After. */
export class RetailRateLimitedError extends SurfaceError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'Too Many Requests');
  }
}

/**
 * Runs after the signature guard: counts the request against its route's limit and `all` for the key,
 * refuses it with 429 when either is spent (or a test set `throttleNext` on the route: `retail.throttled.<name>`),
 * and counts what it lets through per route (`retail.route.<name>`), so tests can tell what reached the surface.
 */
@Injectable()
export class RetailRateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly retail: RetailVenue,
    private readonly counters: SandboxCounters,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const key = context.switchToHttp().getRequest<FastifyRequest>().retailKey;
    if (!key) return true; // a sandbox-only public route
    const route = this.reflector.getAllAndOverride<RetailRouteSpec | undefined>(RETAIL_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    const name = route?.name ?? 'unnamed';
    const { retail } = this;
    const throttled = retail.takeThrottle(name);
    if (throttled !== undefined) {
      retail.arrived(name, key.keyId, false);
      this.counters.count(`retail.throttled.${name}`);
      throw new RetailRateLimitedError(throttled);
    }
    const buckets: RetailBucket[] = route?.bucket ? [route.bucket, 'all'] : ['all'];
    const decision = retail.limiter.take(key.keyId, buckets);
    retail.arrived(name, key.keyId, decision.allowed);
    if (!decision.allowed) {
      this.counters.count(`retail.limited.${decision.bucket}`);
      throw new RetailRateLimitedError(decision.retryAfterSeconds);
    }
    this.counters.count(`retail.route.${name}`);
    const { delayMs } = this.retail.faults;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return true;
  }
}
