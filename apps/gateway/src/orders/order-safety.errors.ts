import { DomainError, ErrorCode } from '@lib/core';

/** The same Idempotency-Key came with another request (the draft's 422). */
export class IdempotencyKeyReusedError extends DomainError {
  constructor(key: string) {
    super(ErrorCode.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was used with another request body; send a new key for a new request.', { extensions: { idempotencyKey: key } });
  }
}

/** The first call with this key has not finished (the draft's 409). */
export class IdempotencyInFlightError extends DomainError {
  constructor(key: string, retryAfterSeconds: number) {
    super(ErrorCode.IDEMPOTENCY_IN_FLIGHT, 'A request with this Idempotency-Key is still being processed; retry the same request after Retry-After.', {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      extensions: { idempotencyKey: key },
    });
  }
}

/** The journal cannot record the intent, so the order is not sent (written ahead). */
export class JournalUnavailableError extends DomainError {
  constructor(cause: unknown) {
    super(ErrorCode.JOURNAL_UNAVAILABLE, 'The order journal cannot be written, so no new order is sent; cancels still pass. Retry after Retry-After.', {
      headers: { 'Retry-After': '5' },
      extensions: { processed: false },
      cause,
    });
  }
}
