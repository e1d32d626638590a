import { EngineError, EngineErrorCode } from '../engine/index.js';
import { SurfaceError } from '../shared/surface-error.js';

/** The retail client tells apart only 400, 401, 404, 429 and 5xx (upstream-facts "Errors"). */
function statusOf(code: EngineErrorCode): number {
  switch (code) {
    case EngineErrorCode.ORDER_NOT_FOUND:
    case EngineErrorCode.UNKNOWN_SYMBOL:
      return 404;
    case EngineErrorCode.DUPLICATE_CLORD_ID:
    case EngineErrorCode.ORDER_NOT_OPEN:
    case EngineErrorCode.INVALID_REQUEST:
    case EngineErrorCode.INSTRUMENT_STATE:
    case EngineErrorCode.BATCH_TOO_LARGE:
    case EngineErrorCode.INVALID_PAGE_TOKEN:
      return 400;
    default:
      return assertUnreachable(code);
  }
}

function assertUnreachable(value: never): never {
  throw new Error(`unmapped engine error code ${String(value)}`);
}

/** Runs an engine operation, restating its refusals as retail `{message}` errors. */
export function engineCall<T>(operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof EngineError) throw new SurfaceError(statusOf(error.code), error.message);
    throw error;
  }
}
