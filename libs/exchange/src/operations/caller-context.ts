/** Who an exchange operation is performed for: the gateway client's team, its request id and, on account-scoped routes, the participant. */
export interface CallerContext {
  team: string;
  /** The gateway client's id: its own bound on calls in flight (bulkheads). */
  client?: string;
  requestId: string;
  /** `firms/<FIRM>/users/<USER>`, already checked against the client's allowed participants. */
  participant?: string;
  /** `Prefer: wait` in ms, already capped by the gateway. */
  preferWaitMs?: number;
}

/** Account-scoped operations (trading, positions, reports, funding) cannot be sent without a participant. */
export interface AccountCallerContext extends CallerContext {
  participant: string;
}
