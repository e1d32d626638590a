import { Inject, Injectable } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { RiskLimits } from './risk-limits.js';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The per-client message throttle (issue 26): order-entering calls per second, as the tightest
 * `maxOrdersPerSecond` limit of the client's scopes sets it (each client counted on its own), a token
 * bucket per client and per instance. It stops a runaway loop even while the exchange budget is free;
 * a cancel never passes here.
 */
@Injectable()
export class OrderThrottle {
  private readonly limits: RiskLimits;
  private readonly buckets = new Map<string, Bucket>();

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
    const bucket = this.buckets.get(client.id) ?? { tokens: rate, at: now };
    bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(client.id, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const waitSeconds = (1 - bucket.tokens) / rate;
    throw new DomainError(ErrorCode.RISK_THROTTLED, `More than ${rate} order-entering calls per second (limit set at scope ${limit.scope}); retry after ${Math.max(1, Math.ceil(waitSeconds))} s. Nothing was sent; cancels are never throttled.`, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(waitSeconds))) },
      extensions: { limit: rate, scope: limit.scope },
    });
  }
}
