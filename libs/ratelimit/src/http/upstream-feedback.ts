import { REQUEST_CLASSES, retryAfterOf } from '@lib/core';

import type { RequestClass } from '../budget/limits.types.js';

export interface UpstreamAnswer {
  status: number;
  /** The `Retry-After` header as received: delta-seconds or an HTTP date. */
  retryAfter?: string | null;
  /** Error message of the body, if any. */
  message?: string;
}

/** How long, and for which classes, to stop sending on the buckets of a refused request. */
export interface UpstreamThrottle {
  seconds: number;
  classes: RequestClass[];
}

/**
 * Reads an upstream answer for rate-limit feedback (spec §7: 429; upstream-facts: 429 carries
 * Retry-After, and during overload orders are rejected with "Global Rate Limit Exceeded", pure
 * cancels exempt, so such a refusal cools down order entry only).
 */
export function upstreamThrottleOf(answer: UpstreamAnswer, nowMs: number, fallbackSeconds = 1): UpstreamThrottle | undefined {
  const seconds = retryAfterOf(answer.retryAfter, nowMs) ?? fallbackSeconds;
  if (answer.status === 429) return { seconds, classes: [...REQUEST_CLASSES] };
  if (answer.message && /global rate limit exceeded/i.test(answer.message)) return { seconds, classes: ['write'] };
  return undefined;
}
