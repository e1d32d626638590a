import { Inject, Injectable } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import { LocalTokenBucket } from '@lib/ratelimit';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { RiskLimits } from './risk-limits.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * The per-client message throttle (issue 26): order-entering calls per second, as the tightest
 * `maxOrdersPerSecond` limit of the client's scopes sets it (each client counted on its own), a token
 * bucket per client and per instance: the in-process bucket of libs/ratelimit (the one the inbound
 * guards use; burst = the rate). It stops a runaway loop even while the exchange budget is free; a
 * cancel never passes here.
 */
@Injectable()
export class OrderThrottle {
  private readonly limits: RiskLimits;
  /** One per configured client that has a limit (the clients are the config's: a bounded map). */
  private readonly buckets = new Map<string, LocalTokenBucket>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly clock: Clock,
  ) {
    this.limits = new RiskLimits(config.risk.limits);
  }

  /** Takes one call's token, or throws 429 RISK_THROTTLED with Retry-After. */
  take(client: AuthenticatedClient, now = this.clock.now()): void {
    const limit = this.limits.binding('maxOrdersPerSecond', client, undefined);
    if (!limit) return;
    const rate = limit.value;
    let bucket = this.buckets.get(client.id);
    if (!bucket) {
      bucket = new LocalTokenBucket(rate, rate / 1_000, now);
      this.buckets.set(client.id, bucket);
    }
    const taken = bucket.take(now);
    if (taken.allowed) return;
    const retryAfter = String(Math.max(1, Math.ceil(taken.retryAfterMs / 1_000)));
    throw new DomainError(
      ErrorCode.RISK_THROTTLED,
      `More than ${rate} order-entering calls per second (limit set at scope ${limit.scope}); retry after ${retryAfter} s. Nothing was sent; cancels are never throttled.`,
      {
        headers: { 'Retry-After': retryAfter },
        extensions: { limit: rate, scope: limit.scope },
      },
    );
  }
}
