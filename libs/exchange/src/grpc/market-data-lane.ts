import { status as GrpcStatus } from '@grpc/grpc-js';
import { DomainError, ErrorCode } from '@lib/core';
import type { TopicSink } from '@lib/fanout';

import { bookStateKey } from './book-state.js';
import type { FeedTiming } from './feed-timing.js';
import type { MarketDataMetrics } from './market-data.metrics.js';
import type { MarketDataResponseMessage, MarketDataStreamRequest, MarketDataUpdateMessage } from './market-data.messages.js';
import { ReconnectTimer } from './reconnect-timer.js';
import { type StreamStatus, isRefusal, statusName, streamRefused } from './stream-status.error.js';
import type { CallListener, UpstreamCall } from './upstream-call.js';

export type MarketDataCall = UpstreamCall<MarketDataResponseMessage, MarketDataStreamRequest>;
export type MarketDataListener = CallListener<MarketDataResponseMessage>;

export interface LaneDeps {
  /** The bearer a new call carries; throws when none can be had. */
  authorization(): Promise<string>;
  /** Opens a call carrying `symbols` from its start (bidirectional when the exchange has it). */
  open(symbols: string[], authorization: string, listener: MarketDataListener): MarketDataCall;
  /** The exchange refused `authorization` (UNAUTHENTICATED): the provider forgets it. */
  rejected(authorization: string): void;
  /** A bidirectional call answered UNIMPLEMENTED: true when calls fall back to server streaming now. */
  fallBack(): boolean;
  metrics: MarketDataMetrics;
  timing: FeedTiming;
  warn(message: string): void;
}

/** One symbol on the lane: its topic's sink, and whether its snapshot arrived on the current call. */
interface Slot {
  readonly sink: TopicSink;
  live: boolean;
  lastKey?: string;
  /** Settles the topic's `open`; unset once the first snapshot arrived. */
  settle?: (error?: Error) => void;
}

/**
 * Up to 1,000 symbols on one market-data stream. On a bidirectional call symbols are added and
 * removed live (batched per tick, so many topics opening at once cost one request); on the
 * server-streaming fallback an added symbol reopens the call with the whole set. The call is never
 * cancelled for a token: it outlives the one it started with, and the provider's current token is
 * used on the next connect. A lost call (UNAUTHENTICATED, UNAVAILABLE, silence, disconnect) is
 * reopened with full-jitter backoff: each live topic gets `gap()`, then its fresh snapshot.
 */
export class MarketDataLane {
  private readonly slots = new Map<string, Slot>();
  private call?: MarketDataCall;
  private connecting = false;
  private lastProblem?: string;
  private readonly reconnect: ReconnectTimer;
  private readonly adds = new Set<string>();
  private readonly removes = new Set<string>();
  private flushing?: NodeJS.Immediate;
  private readonly listener: MarketDataListener = {
    message: (call, message) => {
      this.deps.metrics.received(message.event);
      if (call === this.call && message.event === 'update') this.received(message.update);
    },
    ended: (call, status) => (call === this.call ? this.ended(call, status) : undefined),
  };

  constructor(private readonly deps: LaneDeps) {
    this.reconnect = new ReconnectTimer(deps.timing, () => void this.connect());
  }

  get size(): number {
    return this.slots.size;
  }

  /** True while a call is open (what the firm's stream pool counts). */
  get streaming(): boolean {
    return this.call !== undefined;
  }

  symbols(): string[] {
    return [...this.slots.keys()];
  }

  has(symbol: string): boolean {
    return this.slots.has(symbol);
  }

  /** Resolves on the symbol's first snapshot; rejects when the exchange refuses it or sends none in time. */
  add(symbol: string, sink: TopicSink): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => this.abandon(symbol, this.noSnapshot(symbol)), this.deps.timing.openTimeoutMs);
      const slot: Slot = { sink, live: false };
      slot.settle = (error) => {
        clearTimeout(timeout);
        slot.settle = undefined;
        if (error) reject(error);
        else resolve();
      };
      this.slots.set(symbol, slot);
    });
    this.removes.delete(symbol);
    this.adds.add(symbol);
    this.changed();
    return ready;
  }

  remove(symbol: string): void {
    const slot = this.slots.get(symbol);
    if (!slot) return;
    this.slots.delete(symbol);
    slot.settle?.(new Error(`the ${symbol} feed was closed`));
    if (this.slots.size === 0) return this.stop();
    this.adds.delete(symbol);
    this.removes.add(symbol);
    this.changed();
  }

  /** Ends the call and every pending timer; symbols still on the lane wait for the next `add`. */
  stop(): void {
    this.reconnect.cancel();
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    this.adds.clear();
    this.removes.clear();
    this.call?.cancel();
    this.call = undefined;
  }

  private noSnapshot(symbol: string): DomainError {
    const last = this.lastProblem ? ` (last: ${this.lastProblem})` : '';
    return new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, `The exchange sent no market data for ${symbol} within ${this.deps.timing.openTimeoutMs} ms${last}.`);
  }

  private abandon(symbol: string, error: Error): void {
    const slot = this.slots.get(symbol);
    slot?.settle?.(error);
    this.remove(symbol);
  }

  /** Symbol changes go out once per tick: topics opened together share one request. */
  private changed(): void {
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    if (this.adds.size === 0 && this.removes.size === 0) return;
    if (this.call?.bidirectional) {
      this.call.write({ addSymbols: [...this.adds], removeSymbols: [...this.removes] });
    } else if (this.call && this.adds.size > 0) {
      // Server streaming cannot change its symbols: the whole set on a new call (a removal waits for one).
      this.call.cancel();
      this.call = undefined;
      void this.connect();
    } else if (!this.call && !this.connecting && !this.reconnect.pending) {
      void this.connect();
    }
    this.adds.clear();
    this.removes.clear();
  }

  private async connect(): Promise<void> {
    this.connecting = true;
    let authorization: string;
    try {
      authorization = await this.deps.authorization();
    } catch (error) {
      this.connecting = false;
      return this.retry(`no exchange token (${(error as Error).message})`);
    } finally {
      this.connecting = false;
    }
    if (this.slots.size === 0 || this.call) return;
    // The call carries the whole set from its start: changes queued meanwhile are in it.
    this.adds.clear();
    this.removes.clear();
    try {
      this.call = this.deps.open([...this.slots.keys()], authorization, this.listener);
    } catch (error) {
      // Nothing a retry changes (unreadable protos): fail the opens waiting, keep trying for the rest.
      this.refuseWaiting(error as Error);
      this.retry((error as Error).message);
    }
  }

  private received(update: MarketDataUpdateMessage): void {
    const slot = this.slots.get(update.symbol);
    if (!slot) return; // removed, its removal still on the way
    this.reconnect.succeeded();
    const key = bookStateKey(update);
    if (!slot.live) {
      slot.live = true;
      slot.lastKey = key;
      slot.sink.snapshot(update);
      slot.settle?.();
      return;
    }
    if (key === slot.lastKey) return this.deps.metrics.duplicateDropped();
    slot.lastKey = key;
    slot.sink.update(update);
  }

  private ended(call: MarketDataCall, status: StreamStatus): void {
    this.call = undefined;
    if (status.code === GrpcStatus.UNAUTHENTICATED) this.deps.rejected(call.authorization);
    if (status.code === GrpcStatus.UNIMPLEMENTED && call.bidirectional && this.deps.fallBack()) {
      this.deps.warn('exchange market data: the exchange answered UNIMPLEMENTED to BiDirectionalStreamMarketData; using CreateMarketDataSubscription streams');
      return void this.connect();
    }
    // A refusal (unknown symbol, missing scope, the firm's streams all taken) fails the opens it answered.
    if (isRefusal(status)) this.refuseWaiting(streamRefused('marketData', status));
    // Clients may miss states until the fresh snapshots: tell the hub now, not on reconnect.
    for (const slot of this.slots.values()) {
      if (!slot.live) continue;
      slot.live = false;
      slot.sink.gap();
    }
    this.deps.metrics.reconnecting(statusName(status.code));
    this.retry(`${statusName(status.code)}: ${status.details}`);
  }

  private refuseWaiting(error: Error): void {
    for (const [symbol, slot] of [...this.slots]) if (!slot.live) this.abandon(symbol, error);
  }

  private retry(reason: string): void {
    if (this.slots.size === 0) return;
    this.lastProblem = reason;
    const delay = this.reconnect.schedule();
    this.deps.warn(`exchange market data (${this.slots.size} symbols): stream lost (${reason}); reconnecting in ${delay} ms`);
  }
}
