import { LocalTokenBucket } from './local-token-bucket.js';

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
