import { KeyedBuckets } from './keyed-buckets.js';

describe('KeyedBuckets', () => {
  it('admits a burst per key, then refuses with the wait until the next token, and refills', () => {
    const buckets = new KeyedBuckets(2, 1);
    expect(buckets.take('a', 0)).toEqual({ allowed: true });
    expect(buckets.take('a', 0)).toEqual({ allowed: true });
    expect(buckets.take('a', 0)).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(buckets.take('b', 0)).toEqual({ allowed: true });
    expect(buckets.waitMs('a', 500)).toBe(500);
    expect(buckets.take('a', 1000)).toEqual({ allowed: true });
  });

  it('answers a wait without spending, and forgets full buckets when it holds too many keys', () => {
    const buckets = new KeyedBuckets(1, 1, 2);
    expect(buckets.waitMs('never-seen', 0)).toBe(0);
    buckets.take('a', 0);
    buckets.take('b', 0);
    // Both are full again by t=1000: the third key sweeps them, so 'a' starts over with a full bucket.
    buckets.take('c', 1000);
    expect(buckets.waitMs('a', 1000)).toBe(0);
    expect(buckets.take('c', 1000)).toEqual({ allowed: false, retryAfterMs: 1000 });
  });
});
