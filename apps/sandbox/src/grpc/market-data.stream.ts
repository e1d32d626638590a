import { type ServerWritableStream, status as GrpcStatus } from '@grpc/grpc-js';
import type { MarketDataResponseMessage, MarketDataSubscriptionRequest, MarketDataUpdateMessage } from '@lib/exchange';

import type { BookEvent, MatchingEngine } from '../engine/index.js';
import type { MarketDataStreamRegistry, OpenMarketDataStream } from './market-data-stream.registry.js';
import { type BookScales, updateMessage } from './market-data.wire.js';

export type MarketDataCall = ServerWritableStream<MarketDataSubscriptionRequest, MarketDataResponseMessage>;

export interface StreamTerms {
  firm: string;
  /** Every symbol the stream carries, in snapshot order, with its scales. */
  books: ReadonlyMap<string, BookScales>;
  /** False when the request named no symbol: the stream then carries every book. */
  named: boolean;
  depth: number;
  snapshotOnly: boolean;
  /** Sandbox-clock ms at which the caller's token lapses, and the stream with it (spec §5.1.3). */
  expiresAtMs: number;
}

/** One accepted subscription: snapshots, then an update per book change, heartbeats, an end at token expiry. */
export class MarketDataStream implements OpenMarketDataStream {
  readonly firm: string;
  readonly symbols?: ReadonlySet<string>;
  private live = false;
  private ended = false;
  private heartbeat?: NodeJS.Timeout;
  private expiry?: NodeJS.Timeout;

  constructor(
    private readonly call: MarketDataCall,
    private readonly registry: MarketDataStreamRegistry,
    private readonly engine: MatchingEngine,
    private readonly terms: StreamTerms,
  ) {
    this.firm = terms.firm;
    this.symbols = terms.named ? new Set(terms.books.keys()) : undefined;
  }

  start(nowMs: number): void {
    // Registered before the snapshots are taken so their transact times come from a listening
    // registry; events raised while taking them are already in the snapshots, hence `live` after.
    this.registry.add(this);
    this.call.on('cancelled', () => this.finish('cancelled'));
    for (const [symbol, scales] of this.terms.books) {
      this.send(updateMessage(this.engine.book(symbol, this.terms.depth), this.terms.depth, this.registry.lastChange(symbol), scales));
    }
    if (this.terms.snapshotOnly) return this.end(GrpcStatus.OK, 'snapshot complete', 'snapshot_only');
    this.live = true;
    this.heartbeat = setInterval(() => this.call.write({ event: 'heartbeat', heartbeat: {} }), this.registry.heartbeatMs).unref();
    this.expiry = setTimeout(() => this.end(GrpcStatus.UNAUTHENTICATED, 'unauthenticated: access token has expired', 'expired'), this.terms.expiresAtMs - nowMs).unref();
  }

  book(event: BookEvent): void {
    if (!this.live || this.ended) return;
    const scales = this.terms.books.get(event.symbol);
    if (scales) this.send(updateMessage(event, this.terms.depth, event.transactTime, scales));
  }

  end(code: GrpcStatus, details: string, reason: string): void {
    if (this.ended) return;
    this.finish(reason);
    if (code === GrpcStatus.OK) this.call.end();
    // grpc-js turns an 'error' on a server stream into the call's final status.
    else this.call.emit('error', { code, details });
  }

  private send(update: MarketDataUpdateMessage): void {
    this.call.write({ event: 'update', update });
  }

  private finish(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.live = false;
    clearInterval(this.heartbeat);
    clearTimeout(this.expiry);
    this.registry.remove(this, reason);
  }
}
