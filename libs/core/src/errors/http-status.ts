import { ErrorCode } from './error-code.js';

export function assertUnreachable(value: never): never {
  throw new Error(`unhandled value: ${String(value)}`);
}

/** The one mapping from error code to HTTP status; the switch is exhaustive, so a new code cannot go unmapped. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.VALIDATION_FAILED:
    case ErrorCode.MALFORMED_REQUEST:
    case ErrorCode.UPSTREAM_BAD_REQUEST:
      return 400;
    case ErrorCode.UNAUTHENTICATED:
      return 401;
    case ErrorCode.FORBIDDEN:
    case ErrorCode.UPSTREAM_FORBIDDEN:
      return 403;
    // A halt is the firm's decision about this client, not a fault of the request: forbidden until lifted.
    case ErrorCode.TRADING_HALTED:
    case ErrorCode.TRADING_REDUCE_ONLY:
    case ErrorCode.RISK_FIELD_NOT_ENTITLED:
    case ErrorCode.RISK_BREAKER_OPEN:
      return 403;
    case ErrorCode.NOT_FOUND:
    case ErrorCode.UPSTREAM_NOT_FOUND:
      return 404;
    case ErrorCode.METHOD_NOT_ALLOWED:
      return 405;
    case ErrorCode.REQUEST_TIMEOUT:
      return 408;
    case ErrorCode.UPSTREAM_CONFLICT:
    case ErrorCode.IDEMPOTENCY_IN_FLIGHT:
    case ErrorCode.CLORDID_IN_USE:
    case ErrorCode.ORDER_CHANGE_NOT_APPLIED:
    case ErrorCode.ORDER_NOT_PLACED:
      return 409;
    case ErrorCode.PRECONDITION_FAILED:
      return 412;
    case ErrorCode.PAYLOAD_TOO_LARGE:
    case ErrorCode.UPSTREAM_PAYLOAD_TOO_LARGE:
      return 413;
    case ErrorCode.URI_TOO_LONG:
      return 414;
    case ErrorCode.UNSUPPORTED_MEDIA_TYPE:
      return 415;
    case ErrorCode.RANGE_NOT_SATISFIABLE:
      return 416;
    // The exchange answers its own risk-limit refusals 422 (upstream-facts): the gateway's read the same.
    case ErrorCode.UPSTREAM_UNPROCESSABLE:
    case ErrorCode.RISK_MAX_QUANTITY:
    case ErrorCode.RISK_MAX_NOTIONAL:
    case ErrorCode.RISK_MAX_OPEN_ORDERS:
    case ErrorCode.RISK_OPEN_NOTIONAL:
    case ErrorCode.RISK_POSITION_LIMIT:
    case ErrorCode.RISK_PRICE_BAND:
    case ErrorCode.RISK_REFERENCE_STALE:
    case ErrorCode.RISK_CROSS_TEAM_SELF_TRADE:
    case ErrorCode.RISK_MARKET_UNKNOWN:
    case ErrorCode.IDEMPOTENCY_KEY_REUSED:
      return 422;
    case ErrorCode.RATE_LIMITED:
    case ErrorCode.IN_FLIGHT_LIMITED:
    case ErrorCode.UPSTREAM_RATE_LIMITED:
    case ErrorCode.RISK_THROTTLED:
      return 429;
    case ErrorCode.HEADERS_TOO_LARGE:
      return 431;
    case ErrorCode.INTERNAL:
      return 500;
    // An upstream that answered 401 to a fresh token is a gateway-side credential problem, not the caller's.
    case ErrorCode.UPSTREAM_UNAUTHORIZED:
    case ErrorCode.UPSTREAM_ERROR:
      return 502;
    case ErrorCode.UPSTREAM_UNAVAILABLE:
    case ErrorCode.UPSTREAM_AUTH_UNAVAILABLE:
    case ErrorCode.ORDER_REJECTED_LATENCY:
    case ErrorCode.SERVICE_UNAVAILABLE:
    case ErrorCode.JOURNAL_UNAVAILABLE:
    case ErrorCode.TRADING_STATE_UNKNOWN:
    case ErrorCode.RISK_POSITION_UNKNOWN:
    case ErrorCode.RISK_EVENT_UNKNOWN:
      return 503;
    case ErrorCode.UPSTREAM_TIMEOUT:
      return 504;
    default:
      return assertUnreachable(code);
  }
}

const TITLES: Record<ErrorCode, string> = {
  [ErrorCode.VALIDATION_FAILED]: 'Request validation failed',
  [ErrorCode.MALFORMED_REQUEST]: 'Malformed request',
  [ErrorCode.UNAUTHENTICATED]: 'Authentication required',
  [ErrorCode.FORBIDDEN]: 'Forbidden',
  [ErrorCode.NOT_FOUND]: 'Not found',
  [ErrorCode.METHOD_NOT_ALLOWED]: 'Method not allowed',
  [ErrorCode.REQUEST_TIMEOUT]: 'Request timeout',
  [ErrorCode.PRECONDITION_FAILED]: 'Precondition failed',
  [ErrorCode.URI_TOO_LONG]: 'URI too long',
  [ErrorCode.RANGE_NOT_SATISFIABLE]: 'Range not satisfiable',
  [ErrorCode.HEADERS_TOO_LARGE]: 'Request headers too large',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'Payload too large',
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 'Unsupported media type',
  [ErrorCode.RATE_LIMITED]: 'Rate limit exceeded',
  [ErrorCode.IN_FLIGHT_LIMITED]: 'Too many upstream calls in flight',
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]: 'Idempotency key reused with another request',
  [ErrorCode.IDEMPOTENCY_IN_FLIGHT]: 'Request with this idempotency key in progress',
  [ErrorCode.CLORDID_IN_USE]: 'Client order id already sent',
  [ErrorCode.JOURNAL_UNAVAILABLE]: 'Order journal unavailable',
  [ErrorCode.ORDER_CHANGE_NOT_APPLIED]: 'Order change not applied',
  [ErrorCode.ORDER_NOT_PLACED]: 'Order not placed',
  [ErrorCode.UPSTREAM_BAD_REQUEST]: 'Upstream rejected the request',
  [ErrorCode.UPSTREAM_UNAUTHORIZED]: 'Upstream refused the gateway credentials',
  [ErrorCode.UPSTREAM_FORBIDDEN]: 'Upstream denied permission',
  [ErrorCode.UPSTREAM_NOT_FOUND]: 'Upstream resource not found',
  [ErrorCode.UPSTREAM_CONFLICT]: 'Upstream conflict',
  [ErrorCode.UPSTREAM_PAYLOAD_TOO_LARGE]: 'Upstream rejected the payload size',
  [ErrorCode.UPSTREAM_UNPROCESSABLE]: 'Upstream could not process the request',
  [ErrorCode.UPSTREAM_RATE_LIMITED]: 'Upstream rate limit exceeded',
  [ErrorCode.ORDER_REJECTED_LATENCY]: 'Order rejected unprocessed by the upstream latency guard',
  [ErrorCode.UPSTREAM_ERROR]: 'Upstream error',
  [ErrorCode.UPSTREAM_TIMEOUT]: 'Upstream timed out',
  [ErrorCode.UPSTREAM_UNAVAILABLE]: 'Upstream unavailable',
  [ErrorCode.UPSTREAM_AUTH_UNAVAILABLE]: 'Upstream authentication unavailable',
  [ErrorCode.SERVICE_UNAVAILABLE]: 'Service unavailable',
  [ErrorCode.INTERNAL]: 'Internal error',
  [ErrorCode.TRADING_HALTED]: 'Trading halted',
  [ErrorCode.TRADING_REDUCE_ONLY]: 'Trading is reduce-only',
  [ErrorCode.RISK_MAX_QUANTITY]: 'Order quantity over the risk limit',
  [ErrorCode.RISK_MAX_NOTIONAL]: 'Order notional over the risk limit',
  [ErrorCode.RISK_MAX_OPEN_ORDERS]: 'Open orders at the risk limit',
  [ErrorCode.RISK_OPEN_NOTIONAL]: 'Open notional over the risk limit',
  [ErrorCode.RISK_POSITION_LIMIT]: 'Net position over the risk limit',
  [ErrorCode.RISK_POSITION_UNKNOWN]: 'Net positions not known',
  [ErrorCode.RISK_EVENT_UNKNOWN]: "A market's event not known",
  [ErrorCode.RISK_MARKET_UNKNOWN]: "An order's market not known",
  [ErrorCode.RISK_FIELD_NOT_ENTITLED]: 'Order field not entitled',
  [ErrorCode.RISK_PRICE_BAND]: 'Order price outside the risk price band',
  [ErrorCode.RISK_REFERENCE_STALE]: 'No fresh reference price for the price band',
  [ErrorCode.RISK_CROSS_TEAM_SELF_TRADE]: "Order would trade with another of the firm's participants",
  [ErrorCode.RISK_THROTTLED]: 'Order-entering calls over the risk throttle',
  [ErrorCode.RISK_BREAKER_OPEN]: 'Reject breaker open',
  [ErrorCode.TRADING_STATE_UNKNOWN]: 'Trading states not known',
};

export function titleOf(code: ErrorCode): string {
  return TITLES[code];
}
