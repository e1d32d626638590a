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
  /** A symbol read over REST stays streamed this long after its last read (the hub's linger). */
  readLingerMs: number;
  /** How long a read of a symbol not streamed yet waits for its snapshot before asking REST. */
  readWaitMs: number;
  /** After a refused stream, reads go to REST this long before trying a stream again. */
  readFallbackMs: number;
}

export const FEED_TIMING: FeedTiming = {
  openTimeoutMs: 10_000,
  silenceMs: 180_000,
  keepAliveMs: 30 * 60_000,
  backoffInitialMs: 250,
  backoffMaxMs: 15_000,
  readLingerMs: 5_000,
  readWaitMs: 2_000,
  readFallbackMs: 5_000,
};

/** At most this many symbols on one market-data stream (upstream-facts). */
export const MAX_SYMBOLS_PER_STREAM = 1_000;
