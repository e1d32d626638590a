import { status as GrpcStatus } from '@grpc/grpc-js';
import { DomainError, ErrorCode } from '@lib/core';
import { FirstSnapshot, type TopicSink } from '@lib/fanout';

import type { FeedTiming } from './feed-timing.js';
import type { MarketDataMetrics } from './exchange-stream.metrics.js';
import type {
  MarketDataResponseMessage,
  MarketDataStreamRequest,
  MarketDataUpdateMessage,
} from './market-data.messages.js';
import { type AfterLoss, ReconnectingStream } from './reconnecting-stream.js';
import { type StreamStatus, isRefusal, streamRefused } from './stream-status.error.js';
import { isSymbolRefusal, namedSymbols, splitSuspects } from './symbol-refusal.js';
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
  /** The exchange refused `symbol` on the stream and the lane dropped it; `streamed`: it had streamed (it is no longer listed). */
  dropped(symbol: string, error: Error, streamed: boolean): void;
  metrics: MarketDataMetrics;
  timing: FeedTiming;
  warn(message: string): void;
}

/** One symbol on the lane: its topic's sink, and whether its snapshot arrived on the current call. */
interface Slot {
  readonly sink: TopicSink;
  live: boolean;
  /** A snapshot arrived on some call: the symbol was known to the exchange (an innocent first when a culprit is searched for). */
  streamed: boolean;
  lastKey?: string;
  /** The topic's `open`, settled by the first snapshot. */
  readonly first: FirstSnapshot;
}

/**
 * Up to 1,000 symbols on one market-data stream. On a bidirectional call symbols are added and
 * removed live (batched per tick, so many topics opening at once cost one request); on the
 * server-streaming fallback an added symbol reopens the call with the whole set. The call is never
 * cancelled for a token: it outlives the one it started with, and the provider's current token is
 * used on the next connect. A lost call (UNAUTHENTICATED, UNAVAILABLE, silence, disconnect) is
 * reopened with full-jitter backoff: each live topic gets `gap()`, then its fresh snapshot.
 *
 * A refusal of what the stream carries (INVALID_ARGUMENT, NOT_FOUND: a symbol the exchange does not
 * list, or no longer lists) costs only that symbol: one named in the status is dropped (its open
 * fails, or its topic ends) and the stream reopens at once for the rest. A refusal naming none is
 * narrowed down on the same stream (`splitSuspects`): half the suspects wait off the stream until it
 * is healthy again. Refusals of the whole stream (missing scope, the firm's streams all taken) fail
 * the opens waiting, as before.
 */
export class MarketDataLane {
  private readonly slots = new Map<string, Slot>();
  private readonly stream: ReconnectingStream<MarketDataResponseMessage, MarketDataStreamRequest>;
  private readonly adds = new Set<string>();
  private readonly removes = new Set<string>();
  /** What the current call asked for: the symbols a refusal of it may be about. */
  private carried = new Set<string>();
  /** Suspects of an unattributed refusal kept off the stream, a group at a time back on it once it is healthy. */
  private held: string[][] = [];
  private flushing?: NodeJS.Immediate;

  constructor(private readonly deps: LaneDeps) {
    this.stream = new ReconnectingStream(
      {
        wanted: () => this.slots.size > 0,
        open: (authorization, listener) => this.openCall(authorization, listener),
        message: (message) => {
          this.deps.metrics.received(message.event);
          if (message.event === 'update') this.received(message.update);
        },
        lost: (status, call) => this.lost(status, call),
        unopened: (error) => this.refuseWaiting(error),
      },
      {
        tokens: deps,
        timing: deps.timing,
        metrics: deps.metrics,
        warn: (message) => deps.warn(`exchange market data (${this.slots.size} symbols): ${message}`),
      },
    );
  }

  get size(): number {
    return this.slots.size;
  }

  /** True while a call is open (what the firm's stream pool counts). */
  get streaming(): boolean {
    return this.stream.call !== undefined;
  }

  symbols(): string[] {
    return [...this.slots.keys()];
  }

  has(symbol: string): boolean {
    return this.slots.has(symbol);
  }

  /** Resolves on the symbol's first snapshot; rejects when the exchange refuses it or sends none in time. */
  add(symbol: string, sink: TopicSink): Promise<void> {
    const first = new FirstSnapshot(this.deps.timing.openTimeoutMs, () => {
      const error = this.noSnapshot(symbol);
      this.abandon(symbol, error);
      return error;
    });
    this.slots.set(symbol, { sink, live: false, streamed: false, first });
    this.removes.delete(symbol);
    this.adds.add(symbol);
    this.changed();
    return first.ready;
  }

  remove(symbol: string): void {
    const slot = this.slots.get(symbol);
    if (!slot) return;
    this.slots.delete(symbol);
    slot.first.reject(new Error(`the ${symbol} feed was closed`));
    if (this.slots.size === 0) return this.stop();
    this.adds.delete(symbol);
    this.carried.delete(symbol);
    this.held = this.held.map((group) => group.filter((held) => held !== symbol)).filter((group) => group.length > 0);
    this.removes.add(symbol);
    this.releaseWhenHealthy();
    this.changed();
  }

  /** Ends the call and every pending timer; symbols still on the lane wait for the next `add`. */
  stop(): void {
    this.stream.stop();
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    this.adds.clear();
    this.removes.clear();
    this.carried.clear();
    this.held = [];
  }

  private noSnapshot(symbol: string): DomainError {
    const last = this.stream.lastProblem ? ` (last: ${this.stream.lastProblem})` : '';
    return new DomainError(
      ErrorCode.UPSTREAM_UNAVAILABLE,
      `The exchange sent no market data for ${symbol} within ${this.deps.timing.openTimeoutMs} ms${last}.`,
    );
  }

  private abandon(symbol: string, error: Error): void {
    this.slots.get(symbol)?.first.reject(error);
    this.remove(symbol);
  }

  /** Symbol changes go out once per tick: topics opened together share one request. */
  private changed(): void {
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    if (this.adds.size === 0 && this.removes.size === 0) return;
    const call = this.stream.call;
    if (call?.bidirectional) {
      call.write({ addSymbols: [...this.adds], removeSymbols: [...this.removes] });
      for (const symbol of this.adds) this.carried.add(symbol);
    } else if (call && this.adds.size > 0) {
      // Server streaming cannot change its symbols: the whole set on a new call (a removal waits for one).
      this.stream.restart();
    } else {
      this.stream.start();
    }
    this.adds.clear();
    this.removes.clear();
  }

  private openCall(authorization: string, listener: MarketDataListener): MarketDataCall {
    // The call carries the whole set from its start: changes queued meanwhile are in it.
    this.adds.clear();
    this.removes.clear();
    // Never an empty request (on server streaming that is the whole universe): a held group comes back.
    if (this.held.flat().length === this.slots.size) this.held.shift();
    const held = new Set(this.held.flat());
    this.carried = new Set([...this.slots.keys()].filter((symbol) => !held.has(symbol)));
    return this.deps.open([...this.carried], authorization, listener);
  }

  private received(update: MarketDataUpdateMessage): void {
    const slot = this.slots.get(update.symbol);
    if (!slot) return; // removed, its removal still on the way
    this.stream.delivered();
    const key = bookStateKey(update);
    if (!slot.live) {
      slot.live = slot.streamed = true;
      slot.lastKey = key;
      slot.sink.snapshot(update);
      slot.first.resolve();
      return this.releaseWhenHealthy();
    }
    if (key === slot.lastKey) return this.deps.metrics.duplicateDropped();
    slot.lastKey = key;
    slot.sink.update(update);
  }

  private lost(status: StreamStatus, call: MarketDataCall): AfterLoss {
    if (status.code === GrpcStatus.UNIMPLEMENTED && call.bidirectional && this.deps.fallBack()) {
      this.deps.warn(
        'exchange market data: the exchange answered UNIMPLEMENTED to BiDirectionalStreamMarketData; using CreateMarketDataSubscription streams',
      );
      return 'now';
    }
    const carried = this.carried;
    this.carried = new Set();
    let next: AfterLoss = 'backoff';
    if (isSymbolRefusal(status)) next = this.isolate(status, carried);
    // A refusal of the whole stream (missing scope, the firm's streams all taken) fails the opens it answered.
    else if (isRefusal(status)) this.refuseWaiting(streamRefused('marketData', status));
    // Clients may miss states until the fresh snapshots: tell the hub now, not on reconnect.
    for (const slot of this.slots.values()) {
      if (!slot.live) continue;
      slot.live = false;
      slot.sink.gap();
    }
    return next;
  }

  /**
   * A refusal of symbols the call carried: the ones it names are dropped and the rest reopen at once.
   * Naming none, the suspects are halved: when some symbols were streaming on the refused call (a
   * bidirectional add was refused), the suspects are the others and both halves wait while those
   * reopen alone; when none were, half of all stays on. A last suspect is the culprit. A reopen that
   * may be refused again waits for the backoff, which grows while nothing streams.
   */
  private isolate(status: StreamStatus, carried: ReadonlySet<string>): AfterLoss {
    const error = streamRefused('marketData', status);
    const named = namedSymbols(status.details, carried);
    for (const symbol of named) this.drop(symbol, error);
    if (named.length > 0) return 'now';
    const ours = [...carried].filter((symbol) => this.slots.has(symbol));
    const waiting = ours.filter((symbol) => !this.slots.get(symbol)!.live);
    const innocents = waiting.length > 0 && waiting.length < ours.length;
    const suspects = waiting.length > 0 ? waiting : ours;
    if (suspects.length === 1) {
      this.drop(suspects[0]!, error);
      return 'now';
    }
    if (suspects.length === 0) return 'backoff';
    const [first, second] = splitSuspects(suspects, (symbol) => this.slots.get(symbol)!.streamed);
    this.held.unshift(...(innocents ? [first!, second!] : [second!]));
    this.deps.warn(`exchange market data: ${error.message}; ${this.held.flat().length} symbols held off the stream`);
    return innocents ? 'now' : 'backoff';
  }

  /** The exchange refused `symbol`: its open fails, or, when it had streamed, its topic is ended. */
  private drop(symbol: string, error: Error): void {
    const slot = this.slots.get(symbol);
    if (!slot) return;
    this.deps.warn(`exchange market data: dropped ${symbol} (${error.message})`);
    slot.first.reject(error);
    this.remove(symbol);
    this.deps.dropped(symbol, error, slot.streamed);
  }

  /** Once every symbol on the call streams, the next held group goes back on it. */
  private releaseWhenHealthy(): void {
    if (this.held.length === 0 || !this.stream.call) return;
    for (const symbol of this.carried) if (!this.slots.get(symbol)?.live) return;
    for (const symbol of this.held.shift()!) this.adds.add(symbol);
    this.changed();
  }

  private refuseWaiting(error: Error): void {
    for (const [symbol, slot] of [...this.slots]) if (!slot.live) this.abandon(symbol, error);
  }
}

/**
 * Identity of a delivered book state: levels, instrument state, statistics and transact time. A
 * message with the key of the last state delivered (a resubscription's snapshot of a book that has
 * not changed) is not sent to subscribers again.
 */
function bookStateKey(update: MarketDataUpdateMessage): string {
  return JSON.stringify([
    update.bids,
    update.offers,
    update.state,
    update.stats,
    update.transactTime,
    update.bookHidden,
  ]);
}
