import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type Client, Metadata } from '@grpc/grpc-js';
import { ExchangeTokenProvider } from '@lib/auth';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, MetricsRegistry } from '@lib/core';
import {
  MARKET_DATA_POLICY,
  latestFold,
  type TopicPolicy,
  type TopicSink,
  type TopicSource,
  UnknownTopicError,
} from '@lib/fanout';

import { MarketDataMetrics } from './exchange-stream.metrics.js';
import { FEED_TIMING, MAX_SYMBOLS_PER_STREAM } from './feed-timing.js';
import { type GrpcTarget, grpcTargetOf } from './grpc-target.js';
import { type LaneDeps, type MarketDataCall, MarketDataLane, type MarketDataListener } from './market-data-lane.js';
import type { MarketDataResponseMessage, MarketDataStreamRequest } from './market-data.messages.js';
import { type MarketDataProto, loadMarketDataProto } from './market-data.proto.js';
import { bearerOf } from './reconnecting-stream.js';
import { type BookView, StreamedBook } from './streamed-book.js';
import { UpstreamCall } from './upstream-call.js';
import type { ExchangeConfigView } from '../config/exchange.config.js';
import { InstrumentDirectory } from '../operations/instrument-directory.service.js';

export const EXCHANGE_MARKET_DATA_PREFIX = 'exchange.marketData.';

/** A symbol the exchange refused on a stream is refused here this long (the instrument list's own age), not tried again on the shared stream. */
const REFUSAL_MEMORY_MS = 60_000;
/** At most this many refused symbols remembered; the oldest is forgotten first. */
const REFUSALS_REMEMBERED = 1_000;

/** The most levels the exchange serves (spec 8); subscribers pick what they show. */
const DEPTH = 10;

/**
 * The fan-out hub's source for `exchange.marketData.<symbol>`: every open topic on as few streams as
 * the exchange allows, one BiDirectionalStreamMarketData call per 1,000 symbols (upstream-facts:
 * the firm has 20 streams pooled across every streaming call, and one per symbol is the wrong
 * pattern). Symbols are added and removed on the live call as topics open and close (after the
 * hub's linger). Where the exchange answers the bidirectional call UNIMPLEMENTED, lanes use
 * CreateMarketDataSubscription calls of up to 1,000 symbols instead.
 *
 * The exchange ends a market-data stream with INVALID_ARGUMENT when any symbol on it is unknown, so
 * one bad symbol would cost every symbol on the lane a resync: a symbol joins a lane only when the
 * instrument list names it (InstrumentDirectory, the knowledge that makes the REST book route 404).
 */
@Injectable()
export class MarketDataStreams implements TopicSource, OnApplicationShutdown {
  private readonly logger = new Logger(MarketDataStreams.name);
  private readonly lanes: MarketDataLane[] = [];
  private readonly books = new Map<string, StreamedBook>();
  /** Topics whose open is consulting the instrument list, each with its open's own token (a close deletes it). */
  private readonly admitting = new Map<string, object>();
  private stopped = false;
  private readFallbackUntil = 0;
  /** The last stream attempt for a read was refused: later attempts no longer hold reads. */
  private streamRefused = false;
  private readonly readWatches = new Map<StreamedBook, Promise<void>>();
  /** Symbols the exchange refused on a stream: why, and until when (steady ms) an open or read is refused here. */
  private readonly refusals = new Map<string, { error: Error; until: number }>();
  private readonly grpc: GrpcTarget;
  private readonly metrics: MarketDataMetrics;
  private readonly deps: LaneDeps;
  private bidirectional = true;
  private connection?: { proto: MarketDataProto; client: Client };

  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    private readonly tokens: ExchangeTokenProvider,
    registry: MetricsRegistry,
    private readonly clock: Clock,
    private readonly directory: InstrumentDirectory,
  ) {
    this.grpc = grpcTargetOf(config);
    this.metrics = new MarketDataMetrics(registry, () => this.symbolsCarried());
    this.deps = {
      ...bearerOf(this.tokens, this.grpc.target),
      open: (symbols, authorization, listener) => this.openCall(symbols, authorization, listener),
      fallBack: () => this.fallBack(),
      dropped: (symbol, error, streamed) => this.dropped(symbol, error, streamed),
      metrics: this.metrics,
      timing: FEED_TIMING,
      warn: (message) => this.logger.warn(message),
    };
  }

  /** Resolves once the symbol's first snapshot reached `sink`; a second open of a topic replaces the first. */
  async open(topic: string, sink: TopicSink): Promise<void> {
    const symbol = symbolOf(topic);
    if (!this.tokens.configured)
      throw new DomainError(
        ErrorCode.UPSTREAM_AUTH_UNAVAILABLE,
        'No exchange client is configured for this environment.',
      );
    // The instrument list may take a while: a close, a later open of the topic or the shutdown meanwhile
    // wins, and this open tracks nothing (a symbol nobody holds left on the lane, or a stale sink).
    const ticket = {};
    this.admitting.set(topic, ticket);
    let mine: boolean;
    try {
      await this.admit(topic, symbol);
    } finally {
      mine = this.admitting.get(topic) === ticket;
      if (mine) this.admitting.delete(topic);
    }
    if (!mine || this.stopped)
      throw new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, `${topic.slice(0, 140)} was closed while it was opened.`);
    const book = this.track(symbol);
    book.hub = sink;
    const current = book.view;
    if (current) return sink.snapshot(current.update);
    try {
      await book.whenLive(this.deps.timing.openTimeoutMs);
    } catch (error) {
      if (book.hub === sink) this.close(topic);
      throw error;
    }
  }

  close(topic: string): void {
    this.admitting.delete(topic);
    const symbol = symbolOf(topic);
    const book = this.books.get(symbol);
    if (!book) return;
    book.hub = undefined;
    if (!book.readHeld) this.untrack(symbol, book);
  }

  /**
   * The stream-kept book of `symbol` for a REST read, or undefined when no stream can have it now
   * (the caller then asks the REST route). A symbol not streamed yet is added to the stream and kept
   * there while reads come, plus a linger; its first read waits briefly for the snapshot.
   */
  async read(symbol: string): Promise<BookView | undefined> {
    if (!this.tokens.configured || this.clock.now() < this.readFallbackUntil || this.refusal(symbol)) return undefined;
    // A symbol the exchange does not list is not added to the shared stream for a read: the caller asks REST.
    // One streamed now passed that when it joined: its read waits for nothing (the hot path).
    if (!this.books.has(symbol) && (await this.listing(symbol)) === 'unlisted') return undefined;
    if (this.stopped) return undefined;
    const book = this.track(symbol);
    book.holdForRead(this.deps.timing.readLingerMs, () => {
      if (!book.hub) this.untrack(symbol, book);
    });
    if (book.view) return book.view;
    const live = this.watchForRead(book);
    // Once a stream was refused, the next attempts run behind REST answers: a read that waited for each
    // one would hold every read of the attempt's round trip (30-60 ms at 1,000 reads/s, every 5 s).
    if (!this.streamRefused) await live;
    return book.view;
  }

  /** Refuses a topic whose symbol the exchange does not list (see `listing`). */
  private async admit(topic: string, symbol: string): Promise<void> {
    // Tried again, a refused symbol would end the shared stream under every other team's topics once more.
    const refused = this.refusal(symbol);
    if (refused) throw refused;
    if ((await this.listing(symbol)) === 'unlisted')
      throw new UnknownTopicError(topic, `The exchange lists no instrument ${symbol.slice(0, 100)}.`);
  }

  /**
   * Whether `symbol` may join a lane: the exchange ends the whole shared stream for a symbol it does not
   * list, so one client's typo or probe would resync every team's books. A symbol carried now passed
   * this when it joined. Without an instrument list (none read yet, the exchange's REST unreachable, its
   * budget spent, a list longer than the directory reads) the exchange judges the symbol, as before the
   * list was consulted: refusing every new symbol then would take market data from every team for as
   * long as the list cannot be read.
   */
  private async listing(symbol: string): Promise<'listed' | 'unlisted' | 'unknown'> {
    if (this.books.has(symbol)) return 'listed';
    const listed = await this.directory.lists(symbol);
    return listed === undefined ? 'unknown' : listed ? 'listed' : 'unlisted';
  }

  /** One watcher per book attempt, however many reads wait on it; a refusal sends reads to REST for a while. */
  private watchForRead(book: StreamedBook): Promise<void> {
    const known = this.readWatches.get(book);
    if (known) return known;
    const live = book
      .whenLive(this.deps.timing.readWaitMs)
      .then(
        () => void (this.streamRefused = false),
        (error: unknown) => {
          // Refused (streams all taken, unknown symbol): REST for a while rather than a stream attempt per read.
          if (!(error instanceof DomainError)) return;
          this.readFallbackUntil = this.clock.now() + this.deps.timing.readFallbackMs;
          this.streamRefused = true;
        },
      )
      .finally(() => this.readWatches.delete(book));
    this.readWatches.set(book, live);
    return live;
  }

  /** The symbol's book on a lane, added to the lane with the most room when new. */
  private track(symbol: string): StreamedBook {
    const known = this.books.get(symbol);
    if (known) return known;
    const book = new StreamedBook(() => this.clock.now());
    this.books.set(symbol, book);
    let lane = this.lanes.find((candidate) => candidate.size < MAX_SYMBOLS_PER_STREAM);
    if (!lane) this.lanes.push((lane = new MarketDataLane(this.deps)));
    lane.add(symbol, book).catch((error: Error) => {
      if (this.books.get(symbol) === book) this.books.delete(symbol);
      book.fail(error);
    });
    return book;
  }

  private untrack(symbol: string, book: StreamedBook): void {
    if (this.books.get(symbol) !== book) return;
    this.books.delete(symbol);
    book.release();
    const at = this.lanes.findIndex((lane) => lane.has(symbol));
    if (at < 0) return;
    const lane = this.lanes[at]!;
    lane.remove(symbol);
    if (lane.size === 0) this.lanes.splice(at, 1);
  }

  private refusal(symbol: string): Error | undefined {
    const refused = this.refusals.get(symbol);
    if (refused && refused.until > this.clock.now()) return refused.error;
    this.refusals.delete(symbol);
    return undefined;
  }

  /** A lane dropped a symbol the exchange refused: remembered; one that had streamed ends its readers and its topic. */
  private dropped(symbol: string, error: Error, streamed: boolean): void {
    this.refusals.delete(symbol);
    this.refusals.set(symbol, { error, until: this.clock.now() + REFUSAL_MEMORY_MS });
    if (this.refusals.size > REFUSALS_REMEMBERED) this.refusals.delete(this.refusals.keys().next().value!);
    if (!streamed) return;
    const book = this.books.get(symbol);
    if (book) this.books.delete(symbol);
    const at = this.lanes.findIndex((lane) => lane.size === 0);
    if (at >= 0) this.lanes.splice(at, 1);
    book?.end(error);
  }

  /** Topics with a symbol on a lane now. */
  topics(): string[] {
    return this.lanes.flatMap((lane) => lane.symbols().map((symbol) => EXCHANGE_MARKET_DATA_PREFIX + symbol));
  }

  /** Market-data streams open now (what the firm's pool of 20 counts). */
  streamsInUse(): number {
    return this.lanes.filter((lane) => lane.streaming).length;
  }

  symbolsCarried(): number {
    return this.lanes.reduce((sum, lane) => sum + lane.size, 0);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.admitting.clear();
    for (const lane of this.lanes.splice(0)) lane.stop();
    for (const book of this.books.values()) book.release();
    this.books.clear();
    this.connection?.client.close();
    this.connection = undefined;
  }

  private fallBack(): boolean {
    if (!this.bidirectional) return false;
    this.bidirectional = false;
    return true;
  }

  private openCall(symbols: string[], authorization: string, listener: MarketDataListener): MarketDataCall {
    const { proto, client } = this.connect();
    const metadata = new Metadata();
    metadata.set('authorization', authorization);
    const timing = this.deps.timing;
    const method = this.bidirectional ? proto.bidirectional : undefined;
    if (method) {
      const stream = client.makeBidiStreamRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        metadata,
      );
      const call: MarketDataCall = new UpstreamCall(stream, authorization, true, listener, this.metrics, timing, {});
      call.write({ addSymbols: symbols, depth: DEPTH });
      return call;
    }
    const { path, requestSerialize, responseDeserialize } = proto.subscribe;
    const stream = client.makeServerStreamRequest(
      path,
      requestSerialize,
      responseDeserialize,
      { symbols, depth: DEPTH },
      metadata,
    );
    return new UpstreamCall<MarketDataResponseMessage, MarketDataStreamRequest>(
      stream,
      authorization,
      false,
      listener,
      this.metrics,
      timing,
    );
  }

  /** Protos are read on first use, so a deployment without exchange streams never needs the files. */
  private connect(): { proto: MarketDataProto; client: Client } {
    if (!this.connection) {
      const proto = loadMarketDataProto(this.grpc.protoDir);
      this.connection = { proto, client: new proto.Client(this.grpc.target, this.grpc.credentials) };
    }
    return this.connection;
  }
}

function symbolOf(topic: string): string {
  const symbol = topic.startsWith(EXCHANGE_MARKET_DATA_PREFIX) ? topic.slice(EXCHANGE_MARKET_DATA_PREFIX.length) : '';
  if (!symbol) throw new UnknownTopicError(topic);
  return symbol;
}

/**
 * The firm's market-data symbols: every symbol rides on the one multiplexed stream (up to 1,000 a
 * stream), so a topic costs a symbol of this pool, not a stream; per-team shares and the per-client
 * cap on distinct exchange topics are counted here.
 */
export const EXCHANGE_SYMBOL_POOL = 'exchange.symbols';

/** The firm's exchange streams (upstream-facts: 20 concurrent per firm, every streaming RPC together). */
export const EXCHANGE_STREAM_POOL = 'exchange';

/** Every message is the symbol's full book, so the latest one is the snapshot late joiners need. */
export const EXCHANGE_MARKET_DATA_POLICY: TopicPolicy = {
  ...MARKET_DATA_POLICY,
  fold: latestFold,
  capacity: { pool: EXCHANGE_SYMBOL_POOL, kind: 'marketData' },
};
