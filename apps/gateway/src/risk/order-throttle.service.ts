import { Injectable } from '@nestjs/common';
import { Clock, DomainError, ErrorCode } from '@lib/core';
import { LocalTokenBucket } from '@lib/ratelimit';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';

/**
 * The per-client message throttle (issue 26): order-entering calls per second, as the tightest
 * `maxOrdersPerSecond` limit in force (RiskLimitsSource) of the client's scopes sets it (each client counted on its own), a token
 * bucket per client and per instance: the in-process bucket of libs/ratelimit (the one the inbound
 * guards use; burst = the rate). It stops a runaway loop even while the exchange budget is free; a
 * cancel never passes here.
 */
@Injectable()
export class OrderThrottle {
  /** One per configured client that has a limit (the clients are the config's: a bounded map), at the rate it was made for. */
  private readonly buckets = new Map<string, { rate: number; bucket: LocalTokenBucket }>();

  constructor(
    private readonly source: RiskLimitsSource,
    private readonly clock: Clock,
  ) {}

  /** Takes one call's token, or throws 429 RISK_THROTTLED with Retry-After. */
  take(client: AuthenticatedClient, now = this.clock.now()): void {
    const limit = this.source.current().binding('maxOrdersPerSecond', client, undefined);
    if (!limit) return;
    const rate = limit.value;
    let held = this.buckets.get(client.id);
    // A changed limit (PUT /admin/risk/limits) starts a bucket at the new rate.
    if (held?.rate !== rate) {
      held = { rate, bucket: new LocalTokenBucket(rate, rate / 1_000, now) };
      this.buckets.set(client.id, held);
    }
    const taken = held.bucket.take(now);
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
