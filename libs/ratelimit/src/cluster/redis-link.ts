import type { RedisBudgetStore } from '../store/redis-budget.store.js';
import { BudgetLostError } from '../store/take-batch.js';

export interface RedisLinkOptions {
  instanceId: string;
  heartbeatMs: number;
  /** How often to try Redis again while it is unreachable. */
  probeMs: number;
  /** An instance silent this long is presumed local: its share is reserved (RedisBudgetStore.reserveStale). */
  instanceTtlMs: number;
  /** An instance silent this long is forgotten. */
  staleReserveMs: number;
  /** Peers assumed while none could be counted; local buckets are sized for at least this many. */
  expectedInstances: number;
  /** Consecutive timeouts before going local (hysteresis). */
  degradeAfterTimeouts: number;
}

export interface LinkLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** How long start() waits for a client still connecting before it settles for degraded mode. */
const CONNECT_WAIT_MS = 2_000;

/** Successful probes in a row that end degraded mode (hysteresis: one lucky answer is not a recovery). */
const REJOIN_AFTER_PROBES = 2;

/**
 * A command that may have run in Redis though its answer came too late: the decision it carried must
 * not be made again locally.
 */
export function mayHaveRun(error: unknown): boolean {
  return error instanceof Error && error.message === 'Command timed out';
}

/**
 * Whether the shared budget is reachable, and how many instances share it. The heartbeat doubles as
 * the probe: while Redis is down it runs every `probeMs` (`probeMs / 4` after one answered), and REJOIN_AFTER_PROBES successes in a row
 * end degraded mode. A refused connection degrades at once; timeouts (the usual symptom of a starved
 * event loop, not of Redis) only after `degradeAfterTimeouts` in a row.
 */
export class RedisLink {
  degraded = false;
  /**
   * Instances known (live or presumed cut off); kept through an outage so local buckets stay sized for
   * the whole fleet. Until a first count, the configured fleet size: an instance that restarts while
   * Redis is down must not believe it is alone.
   */
  instances: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private timeoutsInRow = 0;
  /**
   * When the last counted timeout was seen: calls sent before it belong to the same stall. -Infinity
   * until then, so the first timeout always counts (a `sentAt` below 0 is possible: "sent 600 ms ago"
   * in a process younger than that, as the spec writes it).
   */
  private lastTimeoutAt = Number.NEGATIVE_INFINITY;
  private probesInRow = 0;
  /** Set when this instance went local while Redis still answered others (timeouts, not a refused connection). */
  cutOffAlone = false;

  constructor(
    private readonly store: RedisBudgetStore,
    private readonly options: RedisLinkOptions,
    private readonly usage: () => string,
    private readonly onChange: () => void,
    private readonly logger: LinkLogger,
    /** Runs against Redis before this instance leaves degraded mode (re-seeds lost bucket state). */
    private readonly beforeRejoin: () => Promise<void> = async () => undefined,
    /** Runs after every heartbeat that answered, with its round trip in ms (the Redis latency is re-measured there). */
    private readonly afterBeat: (roundTripMs: number) => void = () => undefined,
  ) {
    this.instances = options.expectedInstances;
  }

  /**
   * After going local on timeouts, the others may spend this instance's share on Redis until its
   * heartbeat is stale and they have beaten once since: local cells stay spent that long.
   */
  get holdMs(): number {
    return this.cutOffAlone ? this.options.instanceTtlMs + this.options.heartbeatMs : 0;
  }

  /** The count local buckets are sized for: never fewer than configured. */
  get localShareOf(): number {
    return Math.max(this.instances, this.options.expectedInstances);
  }

  /** Loads the scripts and beats once, so the instance count is known before the first request. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.store.ready(CONNECT_WAIT_MS);
    try {
      await this.store.load();
      await this.store.adopt(this.instances, this.options.staleReserveMs);
    } catch (error) {
      this.failed(error);
    }
    await this.beat();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.store.leave(this.options.instanceId).catch(() => undefined);
  }

  /** A Redis call answered in time: timeouts so far were a passing stall. */
  succeeded(): void {
    this.timeoutsInRow = 0;
  }

  /**
   * A Redis call failed or timed out: decide locally until probes succeed (timeouts: once they persist).
   * `sentAt`: when the call was sent. Calls that were already under way when a timeout was seen time
   * out in the same stall (a starved event loop fails every pending call at once): they count once.
   */
  failed(error: unknown, sentAt = performance.now()): void {
    if (this.degraded) return;
    if (mayHaveRun(error) && !this.countsAsNewStall(sentAt)) return;
    this.degraded = true;
    this.cutOffAlone = mayHaveRun(error);
    this.timeoutsInRow = 0;
    this.probesInRow = 0;
    this.logger.warn(
      `Rate-limit budget: Redis unreachable (${error instanceof Error ? error.message : String(error)}); using local buckets sized for ${this.localShareOf} instance(s).`,
    );
    this.onChange();
  }

  /** Counts a timeout unless the stall it belongs to was counted already; true once they persist. */
  private countsAsNewStall(sentAt: number): boolean {
    if (sentAt < this.lastTimeoutAt) return false;
    this.lastTimeoutAt = performance.now();
    return ++this.timeoutsInRow >= this.options.degradeAfterTimeouts;
  }

  private async beat(): Promise<void> {
    const sentAt = performance.now();
    try {
      const { known, fresh } = await this.announce();
      this.instances = Math.max(1, known);
      this.store.reserveStale(known, fresh);
      this.succeeded();
      this.afterBeat(performance.now() - sentAt);
      if (this.degraded && ++this.probesInRow >= REJOIN_AFTER_PROBES) {
        await this.beforeRejoin();
        this.degraded = false;
        this.logger.log('Rate-limit budget: Redis reachable again; back on the shared buckets.');
      }
      this.onChange();
    } catch (error) {
      this.probesInRow = 0; // successes count only in a row
      this.failed(error, sentAt);
    } finally {
      this.schedule();
    }
  }

  /**
   * The heartbeat. Redis may have lost the budget (BudgetLostError): while deciding from shared cells
   * that sends this instance local first (the caller's failed()); a probe (deciding locally) then adopts
   * the generation in force, reserving the instances known before for as long as they need to return.
   */
  private async announce(): Promise<{ known: number; fresh: number }> {
    const beat = () =>
      this.store.heartbeat(
        this.options.instanceId,
        this.options.staleReserveMs,
        this.usage(),
        this.options.instanceTtlMs,
        this.degraded,
      );
    try {
      return await beat();
    } catch (error) {
      if (!(error instanceof BudgetLostError) || !this.degraded) throw error;
      if (await this.store.adopt(this.instances, this.options.staleReserveMs)) {
        this.logger.warn(
          `Rate-limit budget: Redis lost the shared budget (restarted empty or flushed); its cells come back spent and ${this.instances} instance(s) stay reserved until each is back.`,
        );
      }
      return beat();
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    // A probe that answered is confirmed sooner: the second in a row still must answer, a quarter probe later.
    const probeMs = this.probesInRow > 0 ? this.options.probeMs / 4 : this.options.probeMs;
    this.timer = setTimeout(() => void this.beat(), this.degraded ? probeMs : this.options.heartbeatMs);
    this.timer.unref();
  }
}
