/** Stable machine-readable codes; every code has exactly one HTTP status (see http-status.ts). */
export enum ErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  MALFORMED_REQUEST = 'MALFORMED_REQUEST',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  REQUEST_TIMEOUT = 'REQUEST_TIMEOUT',
  PRECONDITION_FAILED = 'PRECONDITION_FAILED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  URI_TOO_LONG = 'URI_TOO_LONG',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  RANGE_NOT_SATISFIABLE = 'RANGE_NOT_SATISFIABLE',
  HEADERS_TOO_LARGE = 'HEADERS_TOO_LARGE',
  RATE_LIMITED = 'RATE_LIMITED',
  /** A bound on upstream calls in flight (per client or team, see BulkheadsSchema) is reached: the extension `cap` names it. */
  IN_FLIGHT_LIMITED = 'IN_FLIGHT_LIMITED',
  UPSTREAM_BAD_REQUEST = 'UPSTREAM_BAD_REQUEST',
  UPSTREAM_UNAUTHORIZED = 'UPSTREAM_UNAUTHORIZED',
  UPSTREAM_FORBIDDEN = 'UPSTREAM_FORBIDDEN',
  UPSTREAM_NOT_FOUND = 'UPSTREAM_NOT_FOUND',
  UPSTREAM_CONFLICT = 'UPSTREAM_CONFLICT',
  UPSTREAM_PAYLOAD_TOO_LARGE = 'UPSTREAM_PAYLOAD_TOO_LARGE',
  UPSTREAM_UNPROCESSABLE = 'UPSTREAM_UNPROCESSABLE',
  UPSTREAM_RATE_LIMITED = 'UPSTREAM_RATE_LIMITED',
  /** The exchange's latency stopgap refused one order unprocessed ("Global Rate Limit Exceeded"): safe to resend. */
  ORDER_REJECTED_LATENCY = 'ORDER_REJECTED_LATENCY',
  UPSTREAM_ERROR = 'UPSTREAM_ERROR',
  UPSTREAM_TIMEOUT = 'UPSTREAM_TIMEOUT',
  UPSTREAM_UNAVAILABLE = 'UPSTREAM_UNAVAILABLE',
  UPSTREAM_AUTH_UNAVAILABLE = 'UPSTREAM_AUTH_UNAVAILABLE',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  /** A trading state (halted, halt-and-cancel) at firm, team, client or market scope refuses new orders; cancels pass. */
  TRADING_HALTED = 'TRADING_HALTED',
  /** A reduce-only state refuses an order that does not reduce exposure. */
  TRADING_REDUCE_ONLY = 'TRADING_REDUCE_ONLY',
  RISK_MAX_QUANTITY = 'RISK_MAX_QUANTITY',
  RISK_MAX_NOTIONAL = 'RISK_MAX_NOTIONAL',
  RISK_MAX_OPEN_ORDERS = 'RISK_MAX_OPEN_ORDERS',
  /** The scope's open orders (at their worst case) with this one would pass its maximum open notional. */
  RISK_OPEN_NOTIONAL = 'RISK_OPEN_NOTIONAL',
  /** The position plus same-side open quantity plus this order would pass the scope's maximum net position. */
  RISK_POSITION_LIMIT = 'RISK_POSITION_LIMIT',
  /** The streamed net positions are not known on this instance (the position feed not yet delivered, or lost): an order under a net-position limit is refused (fail closed). */
  RISK_POSITION_UNKNOWN = 'RISK_POSITION_UNKNOWN',
  /** A limit is narrowed to an event and the instrument list (which names each market's event) could not be read: the order is refused (fail closed). */
  RISK_EVENT_UNKNOWN = 'RISK_EVENT_UNKNOWN',
  /** A change of an order whose market the gateway does not know (not seen on its order stream nor journal) while a state or a limit narrowed to a market could apply: refused (fail closed), never judged on the body's market. */
  RISK_MARKET_UNKNOWN = 'RISK_MARKET_UNKNOWN',
  /** An order field the client's config does not entitle it to set (ignorePriceValidityChecks). */
  RISK_FIELD_NOT_ENTITLED = 'RISK_FIELD_NOT_ENTITLED',
  /** An order that would execute at once is priced outside the band around the streamed reference price. */
  RISK_PRICE_BAND = 'RISK_PRICE_BAND',
  /** No streamed reference price, or one older than risk.maxReferenceAgeMs: an order that would execute at once is refused (fail closed). */
  RISK_REFERENCE_STALE = 'RISK_REFERENCE_STALE',
  /** The order would cross a resting order of another of the firm's participants, and the firm's policy forbids it. */
  RISK_CROSS_TEAM_SELF_TRADE = 'RISK_CROSS_TEAM_SELF_TRADE',
  /** More order-entering calls per second than the client's risk throttle allows (cancels are never throttled). */
  RISK_THROTTLED = 'RISK_THROTTLED',
  /** The client's orders met too many upstream rejects within the breaker's window: new orders are refused until it cools off or an admin resets it (cancels pass). */
  RISK_BREAKER_OPEN = 'RISK_BREAKER_OPEN',
  /** This instance has not read the latched trading states (Redis unreachable since start) or its last read is too old: new orders are refused (cancels pass). */
  TRADING_STATE_UNKNOWN = 'TRADING_STATE_UNKNOWN',
  /** The same Idempotency-Key came with another request body (issue 27). */
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  /** The first call with this Idempotency-Key is still being processed: retry after Retry-After. */
  IDEMPOTENCY_IN_FLIGHT = 'IDEMPOTENCY_IN_FLIGHT',
  /** An exchange insert's clordId was sent for its participant by its team under another key within the key lifetime: a new order needs a new clordId. */
  CLORDID_IN_USE = 'CLORDID_IN_USE',
  /** The order journal cannot be written, so no new order is sent (cancels still pass). */
  JOURNAL_UNAVAILABLE = 'JOURNAL_UNAVAILABLE',
  /** A change (exchange replace, retail modify) whose answer was lost was resolved as not applied: the order shows other terms after the call was final. */
  ORDER_CHANGE_NOT_APPLIED = 'ORDER_CHANGE_NOT_APPLIED',
  /** A retail create or close-position whose answer was lost was resolved as not placed: the account's order channel, held through the call, showed no order of it. */
  ORDER_NOT_PLACED = 'ORDER_NOT_PLACED',
  INTERNAL = 'INTERNAL',
}
