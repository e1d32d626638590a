import type { OrdRejectReason } from './engine.enums.js';

/** Why the engine refused a request outright (an order it rejects instead gets a REJECTED execution). */
export enum EngineErrorCode {
  DUPLICATE_CLORD_ID = 'DUPLICATE_CLORD_ID',
  ORDER_NOT_FOUND = 'ORDER_NOT_FOUND',
  /** The order is filled, canceled, expired or rejected. */
  ORDER_NOT_OPEN = 'ORDER_NOT_OPEN',
  UNKNOWN_SYMBOL = 'UNKNOWN_SYMBOL',
  /** A replace or query whose terms are invalid; `rejectReason` says which term for a replace. */
  INVALID_REQUEST = 'INVALID_REQUEST',
  /** The instrument's state forbids the operation (spec 3.2), e.g. a cancel while HALTED. */
  INSTRUMENT_STATE = 'INSTRUMENT_STATE',
  BATCH_TOO_LARGE = 'BATCH_TOO_LARGE',
  INVALID_PAGE_TOKEN = 'INVALID_PAGE_TOKEN',
}

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly rejectReason?: OrdRejectReason,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

function assertUnreachable(value: never): never {
  throw new Error(`unmapped engine error code ${String(value)}`);
}

/** The HTTP status the exchange gives each refusal (upstream-facts "Exchange surface": 409, 413, 422). */
export function engineErrorStatus(code: EngineErrorCode): number {
  switch (code) {
    case EngineErrorCode.DUPLICATE_CLORD_ID:
    case EngineErrorCode.ORDER_NOT_OPEN:
      return 409;
    case EngineErrorCode.ORDER_NOT_FOUND:
    case EngineErrorCode.UNKNOWN_SYMBOL:
      return 404;
    case EngineErrorCode.INVALID_REQUEST:
    case EngineErrorCode.INVALID_PAGE_TOKEN:
      return 400;
    case EngineErrorCode.INSTRUMENT_STATE:
      return 422;
    case EngineErrorCode.BATCH_TOO_LARGE:
      return 413;
    default:
      return assertUnreachable(code);
  }
}
