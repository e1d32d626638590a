/** upstream-facts "Retail extras": the retail docs also state 20 requests/s per API key for authenticated calls. */
export const RETAIL_PER_KEY_PER_SECOND = 20;
const SECOND_MS = 1_000;

/**
 * The retail surface's per-key request rate, on top of the spec 8 figures: at most `limit` accepted
 * requests of one key in any sliding second (`'off'` lifts it, for tests about other limits).
 * Refusals are counted by the caller as `retail.limited.key`.
 */
export class RetailKeyRate {
  limit: number | 'off' = RETAIL_PER_KEY_PER_SECOND;
  private readonly times = new Map<string, number[]>();

  /** Seconds until the key may send again, or 0 when this request is let through (and counted). */
  take(keyId: string, now: number): number {
    if (this.limit === 'off') return 0;
    let times = this.times.get(keyId);
    if (!times) this.times.set(keyId, (times = []));
    while (times.length > 0 && times[0] <= now - SECOND_MS) times.shift();
    if (times.length >= this.limit) return 1;
    times.push(now);
    return 0;
  }

  reset(): void {
    this.times.clear();
    this.limit = RETAIL_PER_KEY_PER_SECOND;
  }
}
