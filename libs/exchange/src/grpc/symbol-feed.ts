import { status as GrpcStatus } from '@grpc/grpc-js';
import { DomainError, ErrorCode, fullJitterDelay } from '@lib/core';
import type { TopicSink } from '@lib/fanout';

import { Handover, bookContentKey, bookStateKey } from './book-state.js';
import type { FeedTiming } from './feed-timing.js';
import type { MarketDataMetrics } from './market-data.metrics.js';
import type { MarketDataUpdateMessage } from './market-data.messages.js';
import { type StreamStatus, isRefusal, statusName, streamRefused } from './stream-status.error.js';
import type { CallListener, StreamToken, UpstreamCall } from './upstream-call.js';

export interface FeedDeps {
  /** The current exchange token; throws when none can be had. */
  token(): Promise<StreamToken>;
  open(symbol: string, token: StreamToken, listener: CallListener): UpstreamCall;
  /** The exchange refused `authorization` (UNAUTHENTICATED): the provider forgets it. */
  rejected(authorization: string): void;
  metrics: MarketDataMetrics;
  timing: FeedTiming;
  now(): number;
  warn(message: string): void;
}

type Update = MarketDataUpdateMessage;

/**
 * One symbol's market data, kept flowing across token lifetimes and upstream failures. The first
 * message of a fresh stream goes to the sink as a snapshot, later ones as updates. Ahead of each
 * token's expiry a replacement stream is opened and switched to without loss (see Handover); a lost
 * stream is reopened with backoff, with `gap()` first and the fresh snapshot after.
 */
export class SymbolFeed {
  private current?: UpstreamCall;
  private next?: { call: UpstreamCall; handover: Handover<Update> };
  private last?: { key: string; update: Update };
  private failures = 0;
  private lastProblem?: string;
  private closed = false;
  /** The renewal or the reconnect, whichever is pending (never both: one needs a stream, the other none). */
  private timer?: NodeJS.Timeout;
  private handoverTimer?: NodeJS.Timeout;
  /** Settles `start()`; unset once the first snapshot arrived. */
  private settle?: (error?: Error) => void;
  private readonly listener: CallListener = {
    update: (call, update) => (call === this.current ? this.fromCurrent(call, update) : call === this.next?.call ? this.fromReplacement(update) : undefined),
    ended: (call, status) => (call === this.current ? this.currentEnded(call, status) : call === this.next?.call ? this.replacementEnded(call, status) : undefined),
  };

  constructor(
    readonly symbol: string,
    private readonly sink: TopicSink,
    private readonly deps: FeedDeps,
  ) {}

  /** Resolves on the first snapshot; rejects when the exchange refuses the subscription or sends none in time. */
  start(): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => this.fail(this.noSnapshot()), this.deps.timing.openTimeoutMs);
      this.settle = (error) => {
        clearTimeout(timeout);
        this.settle = undefined;
        if (error) reject(error);
        else resolve();
      };
    });
    void this.connect();
    return ready;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.handoverTimer);
    this.current?.cancel();
    this.next?.call.cancel();
    this.current = this.next = undefined;
    this.settle?.(new Error(`the ${this.symbol} feed was closed`));
  }

  private noSnapshot(): DomainError {
    const last = this.lastProblem ? ` (last: ${this.lastProblem})` : '';
    return new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, `The exchange sent no market data for ${this.symbol} within ${this.deps.timing.openTimeoutMs} ms${last}.`);
  }

  private fail(error: Error): void {
    this.settle?.(error);
    this.close();
  }

  private async connect(): Promise<void> {
    let token: StreamToken;
    try {
      token = await this.deps.token();
    } catch (error) {
      return this.reconnectLater(`no exchange token (${(error as Error).message})`);
    }
    if (this.closed) return;
    try {
      this.current = this.deps.open(this.symbol, token, this.listener);
    } catch (error) {
      // Nothing a retry changes (unreadable protos): fail the open, or keep trying if subscribers wait.
      if (this.settle) this.fail(error as Error);
      else this.reconnectLater((error as Error).message);
    }
  }

  private fromCurrent(call: UpstreamCall, update: Update): void {
    if (call.received === 1) return this.snapshot(call, update);
    this.deliver(update);
    const backlog = this.next?.handover.old(update);
    if (backlog) this.switchOver(backlog);
  }

  private snapshot(call: UpstreamCall, update: Update): void {
    this.failures = 0;
    this.last = { key: bookStateKey(update), update };
    this.sink.snapshot(update);
    this.settle?.();
    this.scheduleRenewal(call);
  }

  /** An update equal to the last state delivered (a renewal overlap) is dropped. */
  private deliver(update: Update): void {
    const key = bookStateKey(update);
    if (key === this.last?.key) return this.deps.metrics.duplicateDropped();
    this.last = { key, update };
    this.sink.update(update);
  }

  private currentEnded(call: UpstreamCall, status: StreamStatus): void {
    this.current = undefined;
    if (status.code === GrpcStatus.UNAUTHENTICATED) this.deps.rejected(call.authorization);
    if (this.next) return this.promoteAfterLoss();
    if (this.settle && isRefusal(status)) return this.fail(streamRefused(status));
    // Clients may have missed states until the fresh snapshot: tell the hub now, not on reconnect.
    if (!this.settle) this.sink.gap();
    this.deps.metrics.reconnecting(statusName(status.code));
    this.reconnectLater(`${statusName(status.code)}: ${status.details}`);
  }

  private reconnectLater(reason: string): void {
    if (this.closed) return;
    this.failures += 1;
    this.lastProblem = reason;
    // Full jitter: after an upstream restart the feeds of every gateway instance come back spread out.
    const delay = fullJitterDelay(this.failures, this.deps.timing.backoffInitialMs, this.deps.timing.backoffMaxMs);
    this.deps.warn(`exchange market data ${this.symbol}: stream lost (${reason}); reconnecting in ${delay} ms`);
    this.arm(delay, () => void this.connect());
  }

  private scheduleRenewal(call: UpstreamCall): void {
    const lead = this.deps.timing.renewLeadMs(call.token.lifetimeMs);
    this.arm(call.expiresAt - lead - this.deps.now(), () => void this.renew(call));
  }

  /** Make before break: open the replacement now, switch once both streams agree on a state. */
  private async renew(call: UpstreamCall): Promise<void> {
    if (this.closed || this.current !== call || this.next) return;
    let token: StreamToken;
    try {
      token = await this.deps.token();
    } catch {
      return this.retryRenewal(call);
    }
    if (this.closed || this.current !== call || this.next) return;
    // The provider has not renewed its token yet: a stream on the same one would lapse at the same time.
    if (token.authorization === call.authorization) return this.retryRenewal(call);
    try {
      this.next = { call: this.deps.open(this.symbol, token, this.listener), handover: new Handover<Update>(bookStateKey, this.last?.key) };
    } catch {
      return this.retryRenewal(call);
    }
    const remaining = call.expiresAt - this.deps.now();
    this.handoverTimer = setTimeout(() => this.handoverTimedOut(), Math.max(0, Math.min(this.deps.timing.handoverTimeoutMs, remaining - 100)));
    this.handoverTimer.unref();
  }

  private retryRenewal(call: UpstreamCall): void {
    // Past the token's life the exchange ends the old stream itself, and the reconnect path takes over.
    if (this.closed || this.current !== call || this.deps.now() >= call.expiresAt) return;
    this.arm(this.deps.timing.renewRetryMs, () => void this.renew(call));
  }

  private fromReplacement(update: Update): void {
    const backlog = this.next?.handover.replacement(update);
    if (backlog) this.switchOver(backlog);
  }

  private switchOver(backlog: Update[]): void {
    const next = this.takeReplacement();
    this.current?.cancel();
    this.current = next.call;
    for (const update of backlog) this.deliver(update);
    this.deps.metrics.renewed('seamless');
    this.scheduleRenewal(next.call);
  }

  /** No common state in time (a quiet book on a server that stamps snapshots "now", or a lagging stream). */
  private handoverTimedOut(): void {
    const pending = this.next;
    if (!pending) return;
    const latest = pending.handover.latest();
    if (!latest) {
      this.takeReplacement().call.cancel();
      if (this.current) this.retryRenewal(this.current);
      return;
    }
    const old = this.current;
    this.takeReplacement();
    old?.cancel();
    this.current = pending.call;
    if (this.last && bookContentKey(this.last.update) === bookContentKey(latest)) {
      // Same book, only a newer stamp: nothing for subscribers to learn.
      this.last = { key: bookStateKey(latest), update: latest };
      this.deps.metrics.renewed('seamless');
    } else {
      this.resync(latest);
      this.deps.metrics.renewed('resync');
    }
    this.scheduleRenewal(pending.call);
  }

  /** The old stream died mid-handover: the replacement takes over, and what clients missed is resynced. */
  private promoteAfterLoss(): void {
    const { call, handover } = this.takeReplacement();
    this.current = call;
    this.deps.metrics.renewed('after_loss');
    const latest = handover.latest();
    if (latest) {
      this.resync(latest);
      this.scheduleRenewal(call);
    } else {
      // No snapshot yet: the replacement's first message becomes it (fromCurrent, received === 1).
      this.sink.gap();
    }
  }

  private resync(update: Update): void {
    this.sink.gap();
    this.last = { key: bookStateKey(update), update };
    this.sink.snapshot(update);
  }

  private replacementEnded(call: UpstreamCall, status: StreamStatus): void {
    this.takeReplacement();
    if (status.code === GrpcStatus.UNAUTHENTICATED) this.deps.rejected(call.authorization);
    this.deps.warn(`exchange market data ${this.symbol}: renewal stream ended with ${statusName(status.code)} (${status.details}); retrying`);
    if (this.current) this.retryRenewal(this.current);
  }

  private takeReplacement(): { call: UpstreamCall; handover: Handover<Update> } {
    const next = this.next!;
    this.next = undefined;
    clearTimeout(this.handoverTimer);
    return next;
  }

  private arm(delayMs: number, run: () => void): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    this.timer = setTimeout(run, Math.max(0, delayMs));
    this.timer.unref();
  }
}
