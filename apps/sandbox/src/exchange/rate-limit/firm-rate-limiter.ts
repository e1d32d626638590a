import { type BucketState, type TakeAnswer, takeToken } from '../../shared/token-bucket.js';
import {
  type BucketLimit,
  EXCHANGE_LIMIT_CLASSES,
  type ExchangeLimitClass,
  type ExchangeTier,
  publishedLimit,
} from './published-limits.js';

export type LimitOverride = BucketLimit | 'off';

export type LimitAnswer = TakeAnswer;

/**
 * The exchange's per-firm limits as token buckets (upstream-facts: "token buckets, not windows
 * averaged over a minute"): a full bucket of `limit` requests, refilled continuously. Written apart
 * from libs/ratelimit on purpose, so the sandbox checks the gateway's budgeting instead of sharing it.
 */
export class FirmRateLimiter {
  private readonly limits = new Map<ExchangeLimitClass, BucketLimit | undefined>();
  private readonly buckets = new Map<string, BucketState>();

  constructor(tier: ExchangeTier, overrides: Partial<Record<ExchangeLimitClass, LimitOverride>> = {}) {
    for (const limitClass of EXCHANGE_LIMIT_CLASSES) {
      const override = overrides[limitClass];
      this.limits.set(limitClass, override === 'off' ? undefined : (override ?? publishedLimit(limitClass, tier)));
    }
  }

  /** Takes one request of `limitClass` for `holder` (a firm, or an IP for the public class) at `now` (ms). */
  take(limitClass: ExchangeLimitClass, holder: string, now: number): LimitAnswer {
    const limit = this.limits.get(limitClass);
    if (!limit) return { ok: true };
    return takeToken(this.buckets, `${limitClass}|${holder}`, limit, now);
  }
}
