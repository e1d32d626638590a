import { status as GrpcStatus } from '@grpc/grpc-js';

import type { BookEvent, MatchingEngine } from '../../engine/index.js';
import type { MarketDataStreamRegistry, OpenMarketDataStream } from './market-data-stream.registry.js';
import { type BookScales, type MarketDataResponse, updateMessage } from './market-data.wire.js';
import { ServerStream, type StreamingCall } from './server-stream.js';
import type { StreamPool } from './stream-pool.js';

export interface MarketDataStreamTerms {
  call: string;
  firm: string;
  clientId: string;
  depth: number;
  maxStreams: number;
}

/**
 * One market-data stream, server-streaming or bidirectional: snapshots of the symbols it takes on,
 * then an update per change of their books, with heartbeats. Authenticated at its start only, so it
 * outlives the token it started with (upstream-facts, operator's streaming rules).
 */
export class MarketDataStream extends ServerStream<MarketDataResponse> implements OpenMarketDataStream {
  /** Undefined: every symbol (a wildcard subscription). */
  symbols?: Set<string>;
  private readonly scales = new Map<string, BookScales>();
  private live = false;
  /** Levels per side; a bidirectional stream takes it from its first message, before any symbol. */
  depth: number;

  constructor(
    grpc: StreamingCall<unknown, MarketDataResponse>,
    pool: StreamPool,
    private readonly registry: MarketDataStreamRegistry,
    private readonly engine: MatchingEngine,
    private readonly terms: MarketDataStreamTerms,
  ) {
    super(grpc, terms.call, terms.firm, terms.clientId, pool);
    this.depth = terms.depth;
  }

  get symbolCount(): number {
    return this.symbols?.size ?? this.scales.size;
  }

  /** Joins the pool and the registry, then snapshots `books`; false when the pool refused it. */
  open(books: ReadonlyMap<string, BookScales>, wildcard: boolean, snapshotOnly: boolean, heartbeatMs: number): boolean {
    if (!this.join(this.terms.maxStreams)) {
      if (!this.grpc.cancelled) this.registry.refused('resource_exhausted');
      return false;
    }
    // Registered before the snapshots are taken so their transact times come from a listening
    // registry; events raised while taking them are already in the snapshots, hence `live` after.
    this.registry.add(this);
    this.symbols = wildcard ? undefined : new Set();
    this.add(books);
    if (snapshotOnly) {
      this.end(GrpcStatus.OK, 'snapshot complete', 'snapshot_only');
      return true;
    }
    this.live = true;
    this.heartbeatEvery(heartbeatMs, () => this.write({ event: 'heartbeat', heartbeat: {} }));
    return true;
  }

  /** Takes symbols on: a snapshot of each now, its updates from then on. One already carried is left as is. */
  add(books: ReadonlyMap<string, BookScales>): void {
    for (const [symbol, scales] of books) {
      if (this.scales.has(symbol)) continue;
      const snapshot = updateMessage(
        this.engine.book(symbol, this.depth),
        this.depth,
        this.registry.lastChange(symbol),
        scales,
      );
      this.scales.set(symbol, scales);
      this.symbols?.add(symbol);
      this.write({ event: 'update', update: snapshot });
    }
  }

  remove(symbols: readonly string[]): void {
    for (const symbol of symbols) {
      this.scales.delete(symbol);
      this.symbols?.delete(symbol);
    }
  }

  carries(symbol: string): boolean {
    return this.scales.has(symbol);
  }

  book(event: BookEvent): void {
    if (!this.live) return;
    const scales = this.scales.get(event.symbol);
    if (scales) this.write({ event: 'update', update: updateMessage(event, this.depth, event.transactTime, scales) });
  }

  protected onEnd(reason: string): void {
    this.live = false;
    this.registry.remove(this, reason);
  }
}
