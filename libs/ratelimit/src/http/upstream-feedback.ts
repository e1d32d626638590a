import { isLatencyReject, retryAfterOf } from '@lib/core';

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
 * Reads an upstream answer for rate-limit feedback. Only a real 429 means slow down (spec §7,
 * upstream-facts), and it cools only the class that earned it: a 429 on a read never stops a create
 * or a cancel. "Global Rate Limit Exceeded" is the exchange's 5 s latency stopgap on one order, "not
 * an actual rate limit — do not throttle" (upstream-facts, operator's rules): it cools nothing,
 * whatever status it comes with.
 */
export function upstreamThrottleOf(answer: UpstreamAnswer, klass: RequestClass, nowMs: number, fallbackSeconds = 1): UpstreamThrottle | undefined {
  if (answer.status !== 429 || isLatencyReject(answer.message)) return undefined;
  return { seconds: retryAfterOf(answer.retryAfter, nowMs) ?? fallbackSeconds, classes: [klass] };
}
