import { RateLimitedError } from '@lib/core';

import type { Decision } from '../budget/decision.js';
import type { TakeRequest } from '../budget/take-plan.js';
import { rateLimitedError } from '../http/rate-limit-headers.js';

/** takeOrWait could not be served within the caller's maximum wait; `waitMs` is the wait it would have needed. */
export class BudgetWaitTooLongError extends RateLimitedError {
  readonly waitMs: number;

  constructor(decision: Decision | undefined, maxWaitMs: number, request?: TakeRequest) {
    const detail = decision
      ? `Upstream budget ${decision.bucket} needs a wait of ${decision.retryAfterMs} ms, more than the ${maxWaitMs} ms allowed.`
      : `Too many requests are already waiting for budget on ${request?.buckets.join(' + ')}.`;
    const base = decision ? rateLimitedError(decision, detail) : undefined;
    super(
      detail,
      (decision?.retryAfterMs ?? 1000) / 1000,
      base?.extensions ?? { buckets: request?.buckets },
      base?.headers ?? {},
    );
    this.waitMs = decision?.retryAfterMs ?? 1000;
  }
}
