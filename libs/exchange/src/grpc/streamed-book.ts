import { FirstSnapshot, type TopicSink } from '@lib/fanout';

import type { MarketDataUpdateMessage } from './market-data.messages.js';

/** A symbol's book as the stream keeps it, for a read: the message and when it arrived (epoch ms). */
export interface BookView {
  update: MarketDataUpdateMessage;
  receivedAt: number;
}

/**
 * One symbol on a market-data lane, shared by its hub topic (when a /ws client watches it) and by
 * REST book reads (while they come, plus a linger): keeps the latest book and passes every message
 * on to the hub's sink. `live` is false between a stream's loss and the fresh snapshot.
 */
export class StreamedBook implements TopicSink {
  hub?: TopicSink;
  private latest?: BookView;
  private live = false;
  private waiters: FirstSnapshot[] = [];
  private readHold?: NodeJS.Timeout;

  constructor(private readonly now: () => number) {}

  /** The current book, or undefined while there is none to trust. */
  get view(): BookView | undefined {
    return this.live ? this.latest : undefined;
  }

  get readHeld(): boolean {
    return this.readHold !== undefined;
  }

  snapshot(payload: unknown): void {
    this.keep(payload);
    this.live = true;
    this.hub?.snapshot(payload);
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }

  update(payload: unknown): void {
    this.keep(payload);
    this.hub?.update(payload);
  }

  gap(): void {
    this.live = false;
    this.hub?.gap();
  }

  /** The lane gave the symbol up (refused, or no snapshot in time): whoever waits learns why. */
  fail(error: Error): void {
    this.live = false;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    this.release();
  }

  /** The exchange refused the symbol after it had streamed (it no longer lists it): the topic ends with `error`. */
  end(error: Error): void {
    this.fail(error);
    this.hub?.end?.(error);
  }

  /** Resolves when the book is live; rejects after `timeoutMs` or when the lane gives the symbol up. */
  whenLive(timeoutMs: number): Promise<void> {
    if (this.live) return Promise.resolve();
    const waiter = new FirstSnapshot(timeoutMs, () => new Error(`no book within ${timeoutMs} ms`));
    this.waiters = [...this.waiters.filter((known) => known.pending), waiter];
    return waiter.ready;
  }

  /** Keeps the symbol streamed for `lingerMs` after this read; `expired` runs when no read came since. */
  holdForRead(lingerMs: number, expired: () => void): void {
    clearTimeout(this.readHold);
    this.readHold = setTimeout(() => {
      this.readHold = undefined;
      expired();
    }, lingerMs);
    this.readHold.unref();
  }

  release(): void {
    clearTimeout(this.readHold);
    this.readHold = undefined;
  }

  private keep(payload: unknown): void {
    this.latest = { update: payload as MarketDataUpdateMessage, receivedAt: this.now() };
  }
}
