/**
 * Where a set of latched records lives (the trading states, the open reject breakers), as the shared
 * loop (LatchedSet) reads it: Redis when the gateway has one (every instance shares it), else this
 * process. Records are keyed (a scope, a client); a change is pushed to every instance.
 */
export interface LatchedSource<R> {
  /**
   * The whole set. `held` is what this instance holds now: a source that finds its data lost (Redis
   * restarted empty, flushed, failed over to an empty replica) latches these again before answering,
   * so a loss never lifts a latched record silently.
   */
  read(held: ReadonlyMap<string, R>): Promise<Map<string, R>>;
  /** Calls `listener` with each record written (or removed: null) by any instance. */
  watch(listener: (key: string, record: R | null) => void): Promise<void>;
  close(): Promise<void>;
}
