import { DomainError, ErrorCode } from '@lib/core';

import { outcomeOf } from './order-outcome.js';

const error = (code: ErrorCode, answered = false) =>
  new DomainError(code, 'x', { extensions: answered ? { upstream: { status: 500 } } : {} });

describe('the outcome of a failed order call', () => {
  it.each<[string, DomainError, string]>([
    ['a timeout', error(ErrorCode.UPSTREAM_TIMEOUT), 'ambiguous'],
    ['a reset connection', error(ErrorCode.UPSTREAM_ERROR), 'ambiguous'],
    ['an upstream 5xx answer', error(ErrorCode.UPSTREAM_ERROR, true), 'ambiguous'],
    ['an upstream 503 answer', error(ErrorCode.UPSTREAM_UNAVAILABLE, true), 'ambiguous'],
    ['an unreachable upstream (never sent)', error(ErrorCode.UPSTREAM_UNAVAILABLE), 'not-sent'],
    ['the latency stopgap ("not processed")', error(ErrorCode.ORDER_REJECTED_LATENCY, true), 'not-sent'],
    ['an upstream 429', error(ErrorCode.UPSTREAM_RATE_LIMITED, true), 'not-sent'],
    ['the gateway budget', error(ErrorCode.RATE_LIMITED), 'not-sent'],
    ['an upstream 400', error(ErrorCode.UPSTREAM_BAD_REQUEST, true), 'answered'],
  ])('%s is %s', (_, failure, outcome) => {
    expect(outcomeOf(failure)).toBe(outcome);
  });
});
