import { z } from 'zod';

const cap = z.number().int().positive();

/**
 * Bounds on the upstream calls in flight, per upstream origin and per instance (issue 25): the
 * connection pools (`http.connectionsPerOrigin`) are shared by every team, so without a bound one
 * team's slow or blocking calls take every connection and another team's calls queue behind them.
 * Each bound left out defaults to an even split of its pool among the configured teams, so the teams
 * together never hold more than the pool; a team's clients each default to the whole team bound.
 * A call past a bound waits for a place (FIFO, at most `queueMs`, or the client's `Prefer: wait` when
 * longer: waiting holds no connection), then is refused (429 IN_FLIGHT_LIMITED naming the bound, with
 * Retry-After), before any budget is spent. Cancels are counted but never refused (a cancel is never blocked by a gateway rule).
 */
export const BulkheadsSchema = z
  .object({
    /** Ordinary calls one team may have in flight to one origin; default: connectionsPerOrigin / teams. */
    perTeam: cap.optional(),
    /** Ordinary calls one client may have in flight to one origin; default: its team's bound. */
    perClient: cap.optional(),
    /** Longest an ordinary call past a bound waits for a place before its 429. */
    queueMs: z.number().int().min(0).max(60_000).default(5_000),
    /** Calls waiting for a place per pool; past it a call is refused at once. */
    maxQueued: cap.default(1_000),
    /**
     * Blocking calls (a surface marks them: those that hold their connection until the upstream is done
     * or the block time it was given passed) go through a pool of their own, so they never occupy the
     * connections ordinary calls need, and draw from a small allowance of their own.
     */
    blocking: z
      .object({
        /** Connections of the blocking pool, per origin. */
        connectionsPerOrigin: cap.default(16),
        /** Blocking calls one team may have in flight; default: blocking.connectionsPerOrigin / teams. */
        perTeam: cap.optional(),
        /** Blocking calls one client may have in flight; default: its team's bound. */
        perClient: cap.optional(),
        /** Longest a blocking call past a bound waits for a place (a place frees only when a block ends); default: refused at once. */
        queueMs: z.number().int().min(0).max(60_000).default(0),
        /** Longest `maxBlockTime` a client may ask for; more is refused (400 naming the field). Absent: the upstream's default (assumed 30 s), capped to this. */
        maxBlockSeconds: cap.max(300).default(30),
      })
      .strict()
      .prefault({}),
  })
  .strict();

/** A team's own bounds, overriding the defaults above (`teams[].bulkhead`). */
export const TeamBulkheadSchema = z.object({ perTeam: cap, blockingPerTeam: cap }).partial().strict();

/** A client's own bounds, overriding the defaults above (`clients[].bulkhead`); the team bound still holds. */
export const ClientBulkheadSchema = z
  .object({ perClient: cap, blockingPerClient: cap, maxBlockSeconds: cap.max(300) })
  .partial()
  .strict();

export type BulkheadsConfig = z.infer<typeof BulkheadsSchema>;
export type TeamBulkheadConfig = z.infer<typeof TeamBulkheadSchema>;
export type ClientBulkheadConfig = z.infer<typeof ClientBulkheadSchema>;
