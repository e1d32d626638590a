import { type DomainError, ErrorCode } from '@lib/core';

/** How a failed order call ended, as far as the exchange is concerned. */
export type Outcome =
  /** Sent, and no trustworthy answer came back: the order may exist (timeout, reset, a 5xx after the send). */
  | 'ambiguous'
  /** The exchange answered it (4xx): that answer is final and replayed. */
  | 'answered'
  /** Never processed (a gateway rule, no budget, not sent, or the exchange's "not processed" reject): the key is free again. */
  | 'not-sent';

export function outcomeOf(error: DomainError): Outcome {
  const answered = error.extensions.upstream !== undefined;
  switch (error.code) {
    case ErrorCode.UPSTREAM_TIMEOUT:
    case ErrorCode.UPSTREAM_ERROR:
      return 'ambiguous';
    case ErrorCode.UPSTREAM_UNAVAILABLE:
      // An answered 503 came after the send; an unreachable upstream (connection refused) was never sent to.
      return answered ? 'ambiguous' : 'not-sent';
    // Refused unprocessed upstream: the exchange's latency stopgap, its throttle, a token it did not take.
    case ErrorCode.ORDER_REJECTED_LATENCY:
    case ErrorCode.UPSTREAM_RATE_LIMITED:
    case ErrorCode.UPSTREAM_UNAUTHORIZED:
      return 'not-sent';
    default:
      return answered ? 'answered' : 'not-sent';
  }
}
