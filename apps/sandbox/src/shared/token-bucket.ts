/** A bucket of `limit` tokens refilled continuously over `perSeconds` (upstream's "token buckets, not windows"). */
export interface BucketLimit {
  limit: number;
  perSeconds: number;
}

export interface BucketState {
  tokens: number;
  at: number;
}

export type TakeAnswer = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Takes one token from `buckets[key]` at `now` (ms), creating a full bucket on first use. Written apart
 * from libs/ratelimit on purpose: the sandbox checks the gateway's budgeting instead of sharing it.
 */
export function takeToken(buckets: Map<string, BucketState>, key: string, limit: BucketLimit, now: number): TakeAnswer {
  const perMs = limit.limit / (limit.perSeconds * 1000);
  const bucket = buckets.get(key) ?? { tokens: limit.limit, at: now };
  bucket.tokens = Math.min(limit.limit, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
  bucket.at = now;
  buckets.set(key, bucket);
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return { ok: true };
  }
  return { ok: false, retryAfterMs: (1 - bucket.tokens) / perMs };
}
