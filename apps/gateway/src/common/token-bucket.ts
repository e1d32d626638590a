/**
 * In-process token bucket for inbound abuse guards. Deliberately local: it runs on every request,
 * cache hits included, and must cost no Redis call (issue 6).
 */
export class LocalTokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly capacity: number,
    private readonly refillPerMs: number,
    now: number,
  ) {
    this.tokens = capacity;
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

/** A bounded family of buckets keyed by client id or IP; idle full buckets are swept. */
export class KeyedBuckets {
  private readonly buckets = new Map<string, LocalTokenBucket>();

  constructor(
    private readonly capacity: number,
    private readonly refillPerSecond: number,
    private readonly maxKeys = 100_000,
  ) {}

  take(key: string, now: number): { allowed: true } | { allowed: false; retryAfterMs: number } {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.sweep(now);
      bucket = new LocalTokenBucket(this.capacity, this.refillPerSecond / 1000, now);
      this.buckets.set(key, bucket);
    }
    return bucket.take(now);
  }

  /** How long until this key has a token again (0: now). Spends nothing. */
  waitMs(key: string, now: number): number {
    return this.buckets.get(key)?.waitMs(now) ?? 0;
  }

  sweep(now: number): void {
    for (const [key, bucket] of this.buckets) if (bucket.isFull(now)) this.buckets.delete(key);
  }
}
