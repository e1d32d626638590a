import { RetailKeyRate } from './retail-key-rate.js';

/**
 * The retail surface's own request limits (spec 8), written independently of libs/ratelimit so the
 * sandbox checks the gateway rather than agreeing with it. Sliding windows per key: a request counts
 * against its route's bucket and against `all`, both or neither.
 */
export type RetailBucket =
  'create' | 'cancel' | 'modify' | 'cancelAll' | 'closePosition' | 'openOrders' | 'getOrder' | 'all';

/** spec 8, per 10 s: 440 create, cancel and modify each; 110 cancel all; 220 close; 55 open orders; 55 one order; 2,000 all. */
export const RETAIL_LIMIT_DEFAULTS: Readonly<Record<RetailBucket, number>> = {
  create: 440,
  cancel: 440,
  modify: 440,
  cancelAll: 110,
  closePosition: 220,
  openOrders: 55,
  getOrder: 55,
  all: 2_000,
};

export const RETAIL_WINDOW_MS = 10_000;

export type LimitDecision =
  { allowed: true } | { allowed: false; bucket: RetailBucket | 'key'; retryAfterSeconds: number };

export class RetailLimiter {
  /** Mutable so tests (and an operator) can lower a limit; spec 8 is the default. */
  readonly limits: Record<RetailBucket, number> = { ...RETAIL_LIMIT_DEFAULTS };
  /** The 20 requests/s per key (upstream-facts), checked before the spec 8 windows. */
  readonly perKey = new RetailKeyRate();
  /** Acceptance times per key and bucket, oldest first. */
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  take(keyId: string, buckets: readonly RetailBucket[]): LimitDecision {
    const now = this.now();
    const keyWait = this.perKey.take(keyId, now);
    if (keyWait > 0) return { allowed: false, bucket: 'key', retryAfterSeconds: keyWait };
    const windows = buckets.map((bucket) => ({ bucket, times: this.window(keyId, bucket, now) }));
    const full = windows.find(({ bucket, times }) => times.length >= this.limits[bucket]);
    if (full) {
      // Until the oldest counted request leaves the window (a limit of 0 never frees up: one window).
      const oldest = full.times[full.times.length - this.limits[full.bucket]] ?? now;
      return {
        allowed: false,
        bucket: full.bucket,
        retryAfterSeconds: Math.max(1, Math.ceil((oldest + RETAIL_WINDOW_MS - now) / 1_000)),
      };
    }
    for (const { times } of windows) times.push(now);
    return { allowed: true };
  }

  reset(): void {
    this.perKey.reset();
    this.windows.clear();
    Object.assign(this.limits, RETAIL_LIMIT_DEFAULTS);
  }

  private window(keyId: string, bucket: RetailBucket, now: number): number[] {
    const name = `${keyId}\u0000${bucket}`;
    let times = this.windows.get(name);
    if (!times) this.windows.set(name, (times = []));
    let expired = 0;
    while (expired < times.length && times[expired] <= now - RETAIL_WINDOW_MS) expired++;
    if (expired > 0) times.splice(0, expired);
    return times;
  }
}
