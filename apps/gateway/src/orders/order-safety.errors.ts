import { DomainError, ErrorCode } from '@lib/core';

/** The same Idempotency-Key came with another request (the draft's 422). */
export class IdempotencyKeyReusedError extends DomainError {
  constructor(key: string) {
    super(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      'This Idempotency-Key was used with another request body; send a new key for a new request.',
      { extensions: { idempotencyKey: key } },
    );
  }
}

/** The first call with this key has not finished (the draft's 409). */
export class IdempotencyInFlightError extends DomainError {
  constructor(key: string, retryAfterSeconds: number) {
    super(
      ErrorCode.IDEMPOTENCY_IN_FLIGHT,
      'A request with this Idempotency-Key is still being processed; retry the same request after Retry-After.',
      {
        headers: { 'Retry-After': String(retryAfterSeconds) },
        extensions: { idempotencyKey: key },
      },
    );
  }
}

/**
 * An exchange insert whose clordId its team sent for the participant before, under another key, within the
 * key lifetime (`journal.keyTtlHours`): the exchange takes a finished order's clordId again as a second
 * order, so the gateway does not send it. Names the clordId only, never the other call's key or client.
 */
export class ClordIdInUseError extends DomainError {
  constructor(clordIds: readonly string[]) {
    super(
      ErrorCode.CLORDID_IN_USE,
      `clordId ${clordIds.join(', ')} was already sent for this participant by this team under another key; a new order needs a new clordId (the first call's outcome: GET /orders/clord/{clordId}).`,
      { extensions: { field: 'clordId', clordIds } },
    );
  }
}

/**
 * An order call not sent in time after its key was claimed (a stalled or paused process, a long budget
 * wait): once its record is `journal.inFlightStaleMs` old, any instance takes the call for a stopped
 * one's and may answer its key ORDER_NOT_PLACED, so it is never sent after that.
 */
export class OrderSendTooLateError extends DomainError {
  constructor(waitedMs: number, sendWithinMs: number) {
    super(
      ErrorCode.SERVICE_UNAVAILABLE,
      `The order was not sent: it was ready ${waitedMs} ms after its record was written, later than the ${sendWithinMs} ms within which an order must leave (after that another instance may take it for a stopped instance's and answer its key). Send it again; if its key was already answered ORDER_NOT_PLACED, with a new key.`,
      { headers: { 'Retry-After': '1' }, extensions: { processed: false } },
    );
  }
}

/** The journal cannot record the intent, so the order is not sent (written ahead). */
export class JournalUnavailableError extends DomainError {
  constructor(cause: unknown) {
    super(
      ErrorCode.JOURNAL_UNAVAILABLE,
      'The order journal cannot be written, so no new order is sent; cancels still pass. Retry after Retry-After.',
      {
        headers: { 'Retry-After': '5' },
        extensions: { processed: false },
        cause,
      },
    );
  }
}

/** A replace or modify whose answer was lost, resolved: the order, read after the call was final, does not show the requested terms. */
export class OrderChangeNotAppliedError extends DomainError {
  constructor(orderId: string, detail: string) {
    super(
      ErrorCode.ORDER_CHANGE_NOT_APPLIED,
      `The change of order ${orderId} was not applied: ${detail}. It will not be sent again; send a new request (with a new Idempotency-Key) to change the order.`,
      {
        extensions: { orderId, resolved: true },
      },
    );
  }
}

/** A retail create or close-position whose answer was lost, resolved: the account's order channel, held without a gap from before the call until it was final, showed no order of it. */
export class OrderNotPlacedError extends DomainError {
  constructor(operation: string, detail: string) {
    super(
      ErrorCode.ORDER_NOT_PLACED,
      `The ${operation} call made no order: ${detail}. It will not be sent again; send a new request (with a new Idempotency-Key) to place the order.`,
      {
        extensions: { resolved: true },
      },
    );
  }
}

/** The order journal cannot be read (its database is away or slow): a 503 the client retries, never a 500. */
export class JournalUnreadableError extends DomainError {
  constructor(cause: unknown) {
    super(ErrorCode.JOURNAL_UNAVAILABLE, 'The order journal cannot be read right now. Retry after Retry-After.', {
      headers: { 'Retry-After': '5' },
      cause,
    });
  }
}
