import { status as GrpcStatus } from '@grpc/grpc-js';

import type { BookEvent, MatchingEngine } from '../../engine/index.js';

/** The registry's view of one open CreateMarketDataSubscription call. */
export interface OpenMarketDataStream {
  readonly firm: string;
  /** Undefined: every symbol. */
  readonly symbols?: ReadonlySet<string>;
  book(event: BookEvent): void;
  /** Ends the call with `code` (OK: a normal end); `reason` names the end in the counters. */
  end(code: GrpcStatus, details: string, reason: string): void;
}

/**
 * Every open market-data stream of the sandbox's gRPC server, with the counters tests read:
 * `grpc.marketData.open` (now), `.opened`, `.ended.<reason>`, `.refused.<reason>`. It listens to
 * the engine only while a stream is open, as the retail channels do, so idle books cost nothing.
 */
export class MarketDataStreamRegistry {
  /** Heartbeat interval of new streams ("every few seconds"); tests shorten it. */
  heartbeatMs = 5_000;
  private readonly streams = new Set<OpenMarketDataStream>();
  private readonly changedAt = new Map<string, number>();
  /** Symbols the market-data service no longer knows (an operator's fault: delisted or expired while streamed). */
  private readonly delisted = new Set<string>();
  private listeningSince = 0;
  private stopListening?: () => void;

  constructor(
    private readonly engine: MatchingEngine,
    private readonly count: (name: string, by?: number) => void,
    private readonly now: () => number,
  ) {}

  /** How many streams are open: all, of one firm, or carrying one symbol. */
  openStreams(filter: { firm?: string; symbol?: string } = {}): number {
    let n = 0;
    for (const stream of this.streams) {
      if (filter.firm !== undefined && stream.firm !== filter.firm) continue;
      if (filter.symbol !== undefined && stream.symbols && !stream.symbols.has(filter.symbol)) continue;
      n++;
    }
    return n;
  }

  /**
   * When `symbol`'s book last changed, for a snapshot's transact_time. Known for every change seen
   * while listening; before that, the time listening began (changes while nobody listened are not seen).
   */
  lastChange(symbol: string): number {
    return this.changedAt.get(symbol) ?? this.listeningSince;
  }

  add(stream: OpenMarketDataStream): void {
    if (this.streams.size === 0) this.listen();
    this.streams.add(stream);
    this.count('grpc.marketData.opened');
    this.count('grpc.marketData.open');
  }

  remove(stream: OpenMarketDataStream, reason: string): void {
    if (!this.streams.delete(stream)) return;
    this.count('grpc.marketData.open', -1);
    this.count(`grpc.marketData.ended.${reason}`);
    if (this.streams.size === 0) this.stop();
  }

  refused(reason: string): void {
    this.count(`grpc.marketData.refused.${reason}`);
  }

  /** False for a symbol delisted here: a request naming it is refused as unknown. */
  knows(symbol: string): boolean {
    return !this.delisted.has(symbol);
  }

  /**
   * The market-data service stops knowing `symbol` (delisted or expired while streamed): every open
   * stream that names it ends UNAVAILABLE, a status that names no symbol, and a new request naming it
   * is refused INVALID_ARGUMENT as any unknown symbol. Returns how many streams ended.
   */
  delist(symbol: string): number {
    this.delisted.add(symbol);
    const carrying = [...this.streams].filter((stream) => stream.symbols?.has(symbol));
    for (const stream of carrying) stream.end(GrpcStatus.UNAVAILABLE, 'the market-data service restarted', 'delisted');
    return carrying.length;
  }

  /** Ends every open stream with UNAVAILABLE, as an exchange restart would; returns how many. */
  endAll(): number {
    const all = [...this.streams];
    for (const stream of all) stream.end(GrpcStatus.UNAVAILABLE, 'the market-data service restarted', 'reset');
    return all.length;
  }

  private listen(): void {
    this.listeningSince = this.now();
    this.stopListening = this.engine.on('book', (event) => {
      this.changedAt.set(event.symbol, event.transactTime);
      if (this.delisted.has(event.symbol)) return;
      for (const stream of this.streams) {
        if (stream.symbols && !stream.symbols.has(event.symbol)) continue;
        // A listener that throws would fail the engine operation that raised the event.
        try {
          stream.book(event);
        } catch {
          stream.end(GrpcStatus.INTERNAL, 'the stream failed', 'internal');
        }
      }
    });
  }

  private stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    this.changedAt.clear();
  }
}
