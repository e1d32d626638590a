/** Timing of the exchange market-data feeds. Constants until an operator needs to tune one. */
export interface FeedTiming {
  /** How long `open` waits for a symbol's first snapshot, reconnects included. */
  openTimeoutMs: number;
  /** A stream silent this long (no update, no heartbeat) is dead (upstream-facts: 180 s). */
  silenceMs: number;
  /** An empty request on a bidirectional stream this often (upstream-facts: every 30-60 min). */
  keepAliveMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
}

export const FEED_TIMING: FeedTiming = {
  openTimeoutMs: 10_000,
  silenceMs: 180_000,
  keepAliveMs: 30 * 60_000,
  backoffInitialMs: 250,
  backoffMaxMs: 15_000,
};

/** At most this many symbols on one market-data stream (upstream-facts). */
export const MAX_SYMBOLS_PER_STREAM = 1_000;
