import { Logger } from '@nestjs/common';
import type { Clock, RedisClient } from '@lib/core';

import type { LatchedSource } from './latched-source.js';

export interface LatchedSetOptions<R> {
  /** How often the whole set is re-read (a lost push heals within this). */
  resyncMs: number;
  clock: Clock;
  /** Redis, when the set lives there: its `ready` (back after an outage) re-reads at once. */
  redis: RedisClient | null;
  /** Names the set in log lines. */
  name: string;
  /** Whether a held record still counts (an expired breaker is neither kept nor latched again). */
  inForce?: (record: R) => boolean;
  /** Called after each change seen here (pushed, written or re-read), to follow the set. */
  onChange?: () => void;
}

/** The first re-read after a failed one; each further failure doubles the wait, up to `resyncMs`. */
const FIRST_RETRY_MS = 100;

/**
 * The latched-state loop the trading states and the reject breaker share: the set is held in memory
 * (the order path reads it with no round trip), each change is pushed to every instance, the whole set
 * is re-read every `resyncMs` and as soon as Redis is back, and a read answers when it was last done
 * (`readAt`, for a fail-closed check). A failed read keeps the last set in force and is tried again
 * after 100 ms, then twice as long each time up to `resyncMs` (a read that timed out on a starved CPU, or
 * the first one at start, must not leave the set unknown, and orders refused, for a whole `resyncMs`); a source that lost its
 * data (LatchedSource.read) gets this instance's records latched again, so none is lifted by the loss.
 */
export class LatchedSet<R> {
  private readonly logger: Logger;
  private records = new Map<string, R>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Reads failed in a row (the next one waits less than `resyncMs` while any did). */
  private failures = 0;
  /** When the whole set was last read (steady clock; undefined: never since start). */
  private lastRead?: number;
  /** The re-read a change asked for, in flight; `again`: another change came meanwhile (see refresh). */
  private refreshing?: Promise<void>;
  private again = false;

  constructor(
    private readonly source: LatchedSource<R>,
    private readonly options: LatchedSetOptions<R>,
  ) {
    this.logger = new Logger(options.name);
    // Redis back: read the set at once rather than at the next re-read.
    options.redis?.on('ready', () => void this.resync());
  }

  get readAt(): number | undefined {
    return this.lastRead;
  }

  async start(): Promise<void> {
    try {
      await this.source.watch((key, record) => this.apply(key, record));
    } catch (error) {
      this.logger.warn(
        `changes of ${this.options.name} are not pushed to this instance (${String(error)}); it re-reads them every ${this.options.resyncMs} ms`,
      );
    }
    await this.resync();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.source.close();
  }

  get(key: string): R | undefined {
    return this.records.get(key);
  }

  values(): R[] {
    return [...this.records.values()];
  }

  /**
   * A change seen here (written by this instance, or pushed): null removes the key. It is followed by a
   * re-read of the whole set: two instances writing one key at once push their changes in an order that
   * need not be the order of their writes, and an instance that applied them as they came held the
   * earlier write (an operator's halt lifted here while Redis held it, until the next re-read). The last
   * re-read starts after the last change was written, so every instance ends on what the set holds.
   */
  apply(key: string, record: R | null): void {
    if (record === null) this.records.delete(key);
    else this.records.set(key, record);
    this.options.onChange?.();
    if (this.options.redis) this.refresh();
  }

  /** One re-read now, and one more after it when changes came while it ran (changes arriving together share them). */
  private refresh(): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = this.resync().finally(() => {
      this.refreshing = undefined;
      if (!this.again || this.stopped) return;
      this.again = false;
      this.refresh();
    });
  }

  async resync(): Promise<void> {
    const inForce = this.options.inForce ?? (() => true);
    try {
      const held = new Map([...this.records].filter(([, record]) => inForce(record)));
      const read = await this.source.read(held);
      this.records = new Map([...read].filter(([, record]) => inForce(record)));
      this.lastRead = this.options.clock.now();
      this.failures = 0;
      this.options.onChange?.();
    } catch (error) {
      this.failures++;
      this.logger.warn(`${this.options.name} not re-read (${String(error)}); the last ones read stay in force`);
    }
  }

  /** The next re-read: `resyncMs` after a good one, sooner while reads fail (FIRST_RETRY_MS doubling). */
  private schedule(): void {
    if (this.stopped) return;
    const { resyncMs } = this.options;
    const wait = this.failures === 0 ? resyncMs : Math.min(resyncMs, FIRST_RETRY_MS * 2 ** (this.failures - 1));
    this.timer = setTimeout(() => void this.resync().then(() => this.schedule()), wait);
    this.timer.unref();
  }
}
