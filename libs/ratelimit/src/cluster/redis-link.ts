import type { RedisBudgetStore } from '../store/redis-budget.store.js';

export interface RedisLinkOptions {
  instanceId: string;
  heartbeatMs: number;
  /** How often to try Redis again while it is unreachable. */
  probeMs: number;
  /** An instance silent this long no longer counts. */
  instanceTtlMs: number;
}

export interface LinkLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** How long start() waits for a client still connecting before it settles for degraded mode. */
const CONNECT_WAIT_MS = 2_000;

/**
 * Whether the shared budget is reachable, and how many instances share it. The heartbeat doubles as
 * the probe: while Redis is down it runs every `probeMs`, and its first success ends degraded mode.
 */
export class RedisLink {
  degraded = false;
  /** Last count seen; kept through an outage so local buckets stay sized for the whole fleet. */
  instances = 1;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(
    private readonly store: RedisBudgetStore,
    private readonly options: RedisLinkOptions,
    private readonly usage: () => string,
    private readonly onChange: () => void,
    private readonly logger: LinkLogger,
    /** Runs against Redis before this instance leaves degraded mode (re-seeds lost bucket state). */
    private readonly beforeRejoin: () => Promise<void> = async () => undefined,
  ) {}

  /** Loads the scripts and beats once, so the instance count is known before the first request. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.store.ready(CONNECT_WAIT_MS);
    try {
      await this.store.load();
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

  /** A Redis call failed or timed out: decide locally until a probe succeeds. */
  failed(error: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(`Rate-limit budget: Redis unreachable (${error instanceof Error ? error.message : String(error)}); using local buckets sized for ${this.instances} instance(s).`);
    this.onChange();
  }

  private async beat(): Promise<void> {
    try {
      this.instances = Math.max(1, await this.store.heartbeat(this.options.instanceId, this.options.instanceTtlMs, this.usage()));
      if (this.degraded) {
        await this.beforeRejoin();
        this.degraded = false;
        this.logger.log('Rate-limit budget: Redis reachable again; back on the shared buckets.');
      }
      this.onChange();
    } catch (error) {
      this.failed(error);
    } finally {
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), this.degraded ? this.options.probeMs : this.options.heartbeatMs);
    this.timer.unref();
  }
}
