import { RateLimitedError } from '@lib/core';

import type { Decision } from '../budget/decision.js';

/**
 * `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers (-10): one
 * policy per cell the request took, named after its bucket (`retail.all@<team>` for a team share);
 * and `Preference-Applied` (RFC 7240) when the decision honoured a `Prefer: wait`.
 */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const applied: Record<string, string> = decision.preferWaitMs === undefined ? {} : { 'Preference-Applied': `wait=${decision.preferWaitMs / 1000}` };
  if (decision.readings.length === 0) return applied;
  const name = (r: Decision['readings'][number]) => JSON.stringify(r.team === undefined ? r.bucket : `${r.bucket}@${r.team}`);
  return {
    'RateLimit-Policy': decision.readings.map((r) => `${name(r)};q=${r.limit};w=${r.windowSeconds}`).join(', '),
    RateLimit: decision.readings.map((r) => `${name(r)};r=${r.remaining};t=${Math.ceil(r.resetMs / 1000)}`).join(', '),
    ...applied,
  };
}

/** Refusal of a budget decision as a 429 (Retry-After plus the RateLimit headers). */
export function rateLimitedError(decision: Decision, detail = `Upstream budget ${decision.bucket} is exhausted.`): RateLimitedError {
  return new RateLimitedError(
    detail,
    decision.retryAfterMs / 1000,
    { bucket: decision.bucket, limitedBy: decision.limitedBy, retryAfterMs: decision.retryAfterMs, ...(decision.team === undefined ? {} : { team: decision.team }) },
    rateLimitHeaders(decision),
  );
}
