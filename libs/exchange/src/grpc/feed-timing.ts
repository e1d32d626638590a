/** Timing of the exchange market-data feeds. Constants until an operator needs to tune one. */
export interface FeedTiming {
  /** How long before a stream's token lapses its replacement is opened. */
  renewLeadMs(tokenLifetimeMs: number): number;
  /** Pause before trying a renewal again (token not renewed yet, replacement refused). */
  renewRetryMs: number;
  /** How long the old and the new stream may run side by side looking for a common book state. */
  handoverTimeoutMs: number;
  /** How long `open` waits for the first snapshot, retries included. */
  openTimeoutMs: number;
  /** A stream silent this long (no update, no heartbeat) is taken for dead. */
  silenceMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
}

export const FEED_TIMING: FeedTiming = {
  // After the token provider's own refresh (min(30 s, a third of the lifetime) early), so a new token
  // is normally there: 180 s tokens renew streams 20 s early, 3 s test tokens 0.75 s early.
  renewLeadMs: (lifetimeMs) => Math.min(20_000, lifetimeMs / 4),
  renewRetryMs: 250,
  handoverTimeoutMs: 5_000,
  openTimeoutMs: 10_000,
  // The exchange sends heartbeats every few seconds; several missed in a row means a dead connection.
  silenceMs: 30_000,
  backoffInitialMs: 250,
  backoffMaxMs: 15_000,
};
