import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  Clock,
  DomainError,
  ErrorCode,
  GATEWAY_CONFIG,
  INSTANCE_ID,
  LUA_GENERATION,
  LuaScript,
  REDIS,
  type RedisClient,
  generationCandidates,
  luaNowMs,
} from '@lib/core';
import { LocalTokenBucket, RateLimiter } from '@lib/ratelimit';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';
import { MIN_ORDERS_PER_SECOND } from './risk.config.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * One call's token of a client's throttle, GCRA (the budget's arithmetic): the bucket holds `span`
 * ms of calls (burst = the rate: one second's worth, one call at least), each call moves its
 * theoretical arrival time on by `emission` ms. The key expires once the bucket is full again, so a
 * missing key is a full bucket, unless Redis forgot it. The throttle's generation (LUA_GENERATION)
 * tells: for a span after a loss, on every instance alike (a step of Redis's clock aside), a missing
 * bucket is created spent, as the budget's cells are (RESEED_SCRIPT): the client may have just spent
 * its burst. The caller asks the same (ARGV[5]) for a span after its instances counted alone (the
 * bucket expired meanwhile).
 * KEYS  the client's TAT key, the throttle's generation key
 * ARGV  emission ms, span ms, the generation held ('' at start), a generation candidate, '1': a missing TAT is spent
 * Reply {1, 0, generation} taken, or {0, wait ms, generation}
 */
const THROTTLE_SCRIPT = `${LUA_GENERATION}
${luaNowMs('now')}
local span = tonumber(ARGV[2])
local gen, lossLeft = generation(KEYS[2], ARGV[3], ARGV[4], span, now)
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat then
  if lossLeft > 0 or ARGV[5] == '1' then
    tat = now + span
    redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(span) + 1)
  else
    tat = now
  end
end
if tat < now then tat = now end
local nextTat = tat + tonumber(ARGV[1])
local late = nextTat - span - now
if late > 0 then return { 0, math.ceil(late), gen } end
redis.call('SET', KEYS[1], tostring(nextTat), 'PX', math.ceil(nextTat - now) + 1)
return { 1, 0, gen }
`;

/** A bucket's span at least: one second of calls (a rate under 1/s: one call's interval). */
const SPAN_MS = 1_000;

/** The longest Retry-After the throttle sends: one call's interval at the slowest rate a limit may set. */
const LONGEST_RETRY_S = Math.round(1 / MIN_ORDERS_PER_SECOND);

/**
 * Retry-After for a wait: whole seconds, 1 to 3,600. The slowest rate a limit may set
 * (MIN_ORDERS_PER_SECOND) waits at most an hour between calls; a longer or non-finite wait can only
 * come from a rate latched before the schema bounded it (5e-324 made it Infinity, 1e-300 a header of
 * 9.999999999999999e+299), and a client is better told to come back in an hour than given a header it
 * cannot read.
 */
export function retryAfterSeconds(waitMs: number): number {
  const seconds = Math.ceil(waitMs / 1_000);
  return Number.isFinite(seconds) ? Math.min(LONGEST_RETRY_S, Math.max(1, seconds)) : LONGEST_RETRY_S;
}

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
 * the shared burst, and N full local shares would be one more burst on top of it. For the same reason a
 * bucket Redis forgot (its data lost, or expired while the instances counted alone) starts spent there
 * within a second of the loss or of the return (THROTTLE_SCRIPT).
 */
@Injectable()
export class OrderThrottle implements OnModuleInit {
  /** Local buckets, one per configured client with a limit (a bounded map), at the rate it was made for. */
  private readonly buckets = new Map<string, { rate: number; bucket: LocalTokenBucket }>();
  private readonly script = new LuaScript(THROTTLE_SCRIPT);
  private readonly prefix: string;
  private readonly generationKey: string;
  /** The last decision was Redis's: the next local one starts every local bucket afresh, spent. */
  private sharedLast = false;
  /** Redis has decided at least once: a local bucket starts spent (before, at boot with Redis down, full). */
  private everShared = false;
  /** The throttle's generation in Redis as this instance last saw it ('' before its first answer). */
  private generation = '';
  /** When (this.clock) this instance last counted a call alone though Redis is configured. */
  private countedAloneAt = Number.NEGATIVE_INFINITY;
  private readonly candidate: () => string;

  constructor(
    private readonly source: RiskLimitsSource,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(INSTANCE_ID) instance: string,
  ) {
    this.candidate = generationCandidates(instance);
    this.prefix = `${config.redis?.keyPrefix ?? ''}{risk}:throttle:`;
    this.generationKey = `${config.redis?.keyPrefix ?? ''}{risk}:throttle-generation`;
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
    const retryAfter = String(retryAfterSeconds(waitMs));
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
    const { shared, localShareOf, returnedAt } = this.limiter.sharing();
    const emission = 1_000 / rate;
    const span = Math.max(SPAN_MS, emission);
    if (this.redis && shared) {
      const now = this.clock.now();
      // Within a span of counting alone (the instances' or this one's), a bucket Redis does not hold may have just been spent.
      const spentIfMissing = now - this.countedAloneAt < span || (returnedAt !== undefined && now - returnedAt < span);
      try {
        const reply = await this.script.run(
          this.redis,
          [this.prefix + clientId, this.generationKey],
          [emission, span, this.generation, this.candidate(), spentIfMissing ? '1' : '0'],
        );
        if (Array.isArray(reply) && (reply[0] === 1 || typeof reply[1] === 'number')) {
          this.sharedLast = this.everShared = true;
          if (typeof reply[2] === 'string') this.generation = reply[2];
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
    if (!this.redis) return this.localWaitMs(clientId, rate);
    this.countedAloneAt = this.clock.now();
    return this.localWaitMs(clientId, rate / localShareOf);
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
