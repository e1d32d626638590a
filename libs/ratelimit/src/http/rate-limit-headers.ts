import { DomainError, RateLimitedError } from '@lib/core';

import type { Decision } from '../budget/decision.js';

/**
 * `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers (-10): one
 * policy per cell the request took, named after its bucket (`retail.all@<team>` for a team share);
 * and `Preference-Applied` (RFC 7240) when the decision honoured a `Prefer: wait`.
 */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const applied = decision.preferWaitMs === undefined ? {} : preferenceApplied(decision.preferWaitMs);
  if (decision.readings.length === 0) return applied;
  const name = (r: Decision['readings'][number]) =>
    JSON.stringify(r.team === undefined ? r.bucket : `${r.bucket}@${r.team}`);
  return {
    'RateLimit-Policy': decision.readings.map((r) => `${name(r)};q=${r.limit};w=${r.windowSeconds}`).join(', '),
    RateLimit: decision.readings.map((r) => `${name(r)};r=${r.remaining};t=${Math.ceil(r.resetMs / 1000)}`).join(', '),
    ...applied,
  };
}

/** What refused the request, in the words a client acts on (`limitedBy`). */
function refusalDetail(decision: Decision): string {
  switch (decision.limitedBy) {
    case 'unavailable':
      return `Upstream budget ${decision.bucket} could not be decided in time (the shared budget did not answer, or answered or was spent too late to send now); nothing was sent: retry after Retry-After.`;
    case 'cool-down':
      return `Upstream budget ${decision.bucket} is cooling down after the upstream answered 429; nothing was sent.`;
    case 'team-share':
      return `Your team's share of upstream budget ${decision.bucket} is exhausted.`;
    default:
      return `Upstream budget ${decision.bucket} is exhausted.`;
  }
}

/** Refusal of a budget decision as a 429 (Retry-After plus the RateLimit headers). */
export function rateLimitedError(decision: Decision, detail = refusalDetail(decision)): RateLimitedError {
  return new RateLimitedError(
    detail,
    decision.retryAfterMs / 1000,
    {
      bucket: decision.bucket,
      limitedBy: decision.limitedBy,
      retryAfterMs: decision.retryAfterMs,
      ...(decision.team === undefined ? {} : { team: decision.team }),
    },
    rateLimitHeaders(decision),
  );
}

/** RFC 7240 `Preference-Applied` for a `Prefer: wait` (ms) that the budget honoured. */
export function preferenceApplied(waitMs: number): Record<string, string> {
  return { 'Preference-Applied': `wait=${waitMs / 1000}` };
}

/** A problem answered after the budget honoured the client's wait says so too (a 429 after queueing, an upstream error). */
export function withPreferenceApplied(error: unknown, waitMs: number): unknown {
  if (error instanceof DomainError) Object.assign(error.headers, preferenceApplied(waitMs));
  return error;
}
