export interface SandboxFaults {
  /** `/oauth/token` drops the connection without an answer: an unreachable auth server (spec §7). */
  authDown: boolean;
  /**
   * Exchange operations (by the name counted in `exchange.calls.<name>`) held this long before they run: a
   * slow upstream. A new order or cancel/replace held past the 5 s latency stopgap is rejected unprocessed
   * at 5 s instead ("Global Rate Limit Exceeded", see latency-reject.ts).
   */
  exchangeDelayMs?: Record<string, number>;
  /** Every catalog route answers 503: an unreachable catalog gateway, for stale-if-error. Unset: off. */
  catalogDown?: boolean;
  /** Every catalog answer is held this long: a slow upstream, so concurrent misses overlap. Unset: 0. */
  catalogLatencyMs?: number;
  /** The next N exchange new orders / cancel-replaces get "Global Rate Limit Exceeded" (see latency-reject.ts). Unset: 0. */
  latencyRejectNext?: number;
  /** Exchange operations (by name) whose answer is lost after they ran: see AnswerFault. */
  exchangeAnswerFaults?: Record<string, AnswerFault>;
  /**
   * The next N calls of each named exchange operation are lost before they run: the connection drops
   * after the request was sent, the operation never happens (no order, no answer). Counted in
   * `exchange.requestsLost.<operation>`, not in `exchange.calls.<operation>`.
   */
  exchangeLostRequests?: Record<string, number>;
  /**
   * The next `count` calls of each named exchange operation are answered 502 at once (the operator's load
   * balancer lost its backend) while the request still reaches the exchange, which runs it `runAfterMs`
   * later (within its 5 s latency stopgap): a 5xx after the send does not say the order was not placed
   * (upstream-facts "Order safety"). Counted in `exchange.badGateway.<operation>` and, once run, in
   * `exchange.calls.<operation>`.
   */
  exchangeBadGateway?: Record<string, { count: number; runAfterMs: number }>;
}

/**
 * Faults after an operation ran (the order exists, or the exchange refused it): of every `every` calls,
 * the first `drop` lose their connection without an answer and the next `hold` answer `holdMs` late (past
 * the client's timeout), whatever the answer says. `every: 20, drop: 2, hold: 1` drops 10 % and holds 5 %.
 */
export interface AnswerFault {
  every: number;
  drop: number;
  hold: number;
  holdMs: number;
}

/** The operator's faults every surface reads as it answers; set under `/_sandbox/` or by a test. */
export class FaultBoard {
  readonly active: SandboxFaults = { authDown: false };

  set(faults: Partial<SandboxFaults>): SandboxFaults {
    Object.assign(this.active, faults);
    return { ...this.active };
  }
}
