/**
 * In-process token bucket, the mechanism of the gateway's inbound abuse guards (per client, failed
 * logins). Deliberately local: it runs on every request, cache hits included, and must cost no Redis
 * call (issue 6). The upstream budgets are not this: they are the shared Redis buckets (RateLimiter).
 */
export class LocalTokenBucket {
  private tokens: number;
  private updatedAt: number;

  /** `tokens`: what it holds at `now` (full by default; 0 starts it spent). */
  constructor(
    private readonly capacity: number,
    private readonly refillPerMs: number,
    now: number,
    tokens = capacity,
  ) {
    this.tokens = Math.min(capacity, tokens);
    this.updatedAt = now;
  }

  /** Takes one token if there is one; otherwise answers how long until there will be (ms). */
  take(now: number): { allowed: true } | { allowed: false; retryAfterMs: number } {
    const wait = this.waitMs(now);
    if (wait === 0) {
      this.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: wait };
  }

  /** Refills, then answers how long until one token is available (0: now). Spends nothing. */
  waitMs(now: number): number {
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.updatedAt) * this.refillPerMs);
    this.updatedAt = now;
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) / this.refillPerMs);
  }

  /** True when the bucket is full again, so an idle entry can be forgotten. */
  isFull(now: number): boolean {
    return this.tokens + (now - this.updatedAt) * this.refillPerMs >= this.capacity;
  }
}
