import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, LuaScript, luaNowMs, REDIS, type RedisClient } from '@lib/core';
import { LocalTokenBucket, RateLimiter } from '@lib/ratelimit';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * One call's token of a client's throttle, GCRA (the budget's arithmetic): the bucket holds `span`
 * ms of calls (burst = the rate: one second's worth), each call moves its theoretical arrival time
 * on by `emission` ms. The key expires once the bucket is full again.
 * KEYS  the client's TAT key; ARGV emission ms, span ms. Reply {1, 0} taken, or {0, wait ms}.
 */
const THROTTLE_SCRIPT = `
${luaNowMs('now')}
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local nextTat = tat + tonumber(ARGV[1])
local late = nextTat - tonumber(ARGV[2]) - now
if late > 0 then return { 0, math.ceil(late) } end
redis.call('SET', KEYS[1], tostring(nextTat), 'PX', math.ceil(nextTat - now) + 1)
return { 1, 0 }
`;

/**
 * The per-client message throttle (issue 26): order-entering calls per second, as the tightest
 * `maxOrdersPerSecond` limit in force (RiskLimitsSource) of the client's scopes sets it (each client
 * counted on its own), burst = the rate. It stops a runaway loop even while the exchange budget is
 * free; a cancel never passes here.
 *
 * With Redis the count is the fleet's: one script call per order-entering call, whichever instance
 * it enters. While Redis is down (as the budget sees it: RateLimiter.sharing) or a call to it fails,
 * each instance counts alone at the rate divided by the fleet's size (the budget's own rule), so the
 * fleet together stays within the rate; without Redis (one instance), the whole rate here. Local
 * buckets start spent once Redis has decided (the budget's rule too): the client may have just spent
 * the shared burst, and N full local shares would be one more burst on top of it.
 */
@Injectable()
export class OrderThrottle implements OnModuleInit {
  /** Local buckets, one per configured client with a limit (a bounded map), at the rate it was made for. */
  private readonly buckets = new Map<string, { rate: number; bucket: LocalTokenBucket }>();
  private readonly script = new LuaScript(THROTTLE_SCRIPT);
  private readonly prefix: string;
  /** The last decision was Redis's: the next local one starts every local bucket afresh, spent. */
  private sharedLast = false;
  /** Redis has decided at least once: a local bucket starts spent (before, at boot with Redis down, full). */
  private everShared = false;

  constructor(
    private readonly source: RiskLimitsSource,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.prefix = `${config.redis?.keyPrefix ?? ''}{risk}:throttle:`;
  }

  async onModuleInit(): Promise<void> {
    // Best effort: a call before (or after Redis forgot it) falls back to EVAL.
    if (this.redis?.status === 'ready') await this.script.load(this.redis).catch(() => undefined);
  }

  /** Takes one call's token, or throws 429 RISK_THROTTLED with Retry-After. */
  async take(client: AuthenticatedClient): Promise<void> {
    const limit = this.source.current().binding('maxOrdersPerSecond', client, undefined);
    if (!limit) return;
    const rate = limit.value;
    const waitMs = await this.waitMs(client.id, rate);
    if (waitMs === 0) return;
    const retryAfter = String(Math.max(1, Math.ceil(waitMs / 1_000)));
    throw new DomainError(
      ErrorCode.RISK_THROTTLED,
      `More than ${rate} order-entering calls per second (limit set at scope ${limit.scope}); retry after ${retryAfter} s. Nothing was sent; cancels are never throttled.`,
      {
        headers: { 'Retry-After': retryAfter },
        extensions: { limit: rate, scope: limit.scope },
      },
    );
  }

  /** 0: taken; else how long until a token (ms). */
  private async waitMs(clientId: string, rate: number): Promise<number> {
    const { shared, localShareOf } = this.limiter.sharing();
    if (this.redis && shared) {
      try {
        const reply = await this.script.run(this.redis, [this.prefix + clientId], [1_000 / rate, 1_000]);
        if (Array.isArray(reply) && (reply[0] === 1 || typeof reply[1] === 'number')) {
          this.sharedLast = this.everShared = true;
          return reply[0] === 1 ? 0 : Math.max(1, Number(reply[1]));
        }
      } catch {
        // Counted here instead: the script may have run too, which only makes this call stricter.
      }
    }
    if (this.sharedLast) {
      // Redis decided until now: buckets left from an earlier episode refilled meanwhile, and a new one must not start full.
      this.sharedLast = false;
      this.buckets.clear();
    }
    return this.localWaitMs(clientId, this.redis ? rate / localShareOf : rate);
  }

  private localWaitMs(clientId: string, rate: number): number {
    const now = this.clock.now();
    let held = this.buckets.get(clientId);
    // A changed limit (PUT /admin/risk/limits) or fleet size starts a bucket at the new rate.
    if (held?.rate !== rate) {
      const capacity = Math.max(1, rate);
      held = { rate, bucket: new LocalTokenBucket(capacity, rate / 1_000, now, this.everShared ? 0 : capacity) };
      this.buckets.set(clientId, held);
    }
    const taken = held.bucket.take(now);
    return taken.allowed ? 0 : taken.retryAfterMs;
  }
}
