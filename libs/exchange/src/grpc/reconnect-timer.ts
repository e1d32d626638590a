import { fullJitterDelay } from '@lib/core';

import type { FeedTiming } from './feed-timing.js';

/**
 * The reconnect of one lost stream: full-jitter exponential backoff (after an upstream restart the
 * streams of every gateway instance come back spread out), one pending attempt at most, and a reset
 * once the stream delivers again.
 */
export class ReconnectTimer {
  private failures = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly timing: Pick<FeedTiming, 'backoffInitialMs' | 'backoffMaxMs'>,
    private readonly connect: () => void,
  ) {}

  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** Schedules the next attempt; returns its delay (ms) for the log line. */
  schedule(): number {
    this.failures += 1;
    const delay = fullJitterDelay(this.failures, this.timing.backoffInitialMs, this.timing.backoffMaxMs);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, delay);
    this.timer.unref();
    return delay;
  }

  /** The stream works again: the next loss starts from the initial delay. */
  succeeded(): void {
    this.failures = 0;
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.failures = 0;
  }
}
