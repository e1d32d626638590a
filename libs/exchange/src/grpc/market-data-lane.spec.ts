import { status as GrpcStatus } from '@grpc/grpc-js';
import type { TopicSink } from '@lib/fanout';

import type { MarketDataMetrics } from './exchange-stream.metrics.js';
import type { FeedTiming } from './feed-timing.js';
import { type LaneDeps, type MarketDataCall, MarketDataLane, type MarketDataListener } from './market-data-lane.js';
import type { MarketDataStreamRequest } from './market-data.messages.js';
import type { StreamStatus } from './stream-status.error.js';

const TIMING: FeedTiming = {
  openTimeoutMs: 30_000,
  silenceMs: 600_000,
  keepAliveMs: 600_000,
  backoffInitialMs: 1,
  backoffMaxMs: 4,
  readLingerMs: 1_000,
  readWaitMs: 1_000,
  readFallbackMs: 1_000,
};

/**
 * The exchange as the lane sees it: a call carrying symbols (from its start, or added on a
 * bidirectional one) is ended INVALID_ARGUMENT when one of them is not known, naming it or not.
 */
class FakeExchange {
  readonly known = new Set<string>();
  opens = 0;
  refusals = 0;
  current?: { call: MarketDataCall; listener: MarketDataListener };
  readonly dropped: string[] = [];

  constructor(
    private readonly bidirectional: boolean,
    private readonly names: boolean,
  ) {}

  deps(): LaneDeps {
    return {
      authorization: () => Promise.resolve('Bearer t'),
      open: (symbols, _authorization, listener) => this.open(symbols, listener),
      rejected: () => undefined,
      fallBack: () => false,
      dropped: (symbol, _error, streamed) => void (streamed && this.dropped.push(symbol)),
      metrics: {
        received: () => undefined,
        duplicateDropped: () => undefined,
        reconnecting: () => undefined,
      } as unknown as MarketDataMetrics,
      timing: TIMING,
      warn: () => undefined,
    };
  }

  /** Ends the open call as a restart would (a status that names nothing). */
  restart(): void {
    const current = this.current;
    this.current = undefined;
    current?.listener.ended(current.call, { code: GrpcStatus.UNAVAILABLE, details: 'restarted' });
  }

  private open(symbols: string[], listener: MarketDataListener): MarketDataCall {
    this.opens += 1;
    const call = {
      bidirectional: this.bidirectional,
      authorization: 'Bearer t',
      write: (request: MarketDataStreamRequest) => this.carry(call, request.addSymbols ?? []),
      cancel: () => {
        if (this.current?.call === call) this.current = undefined;
      },
    } as unknown as MarketDataCall;
    this.current = { call, listener };
    this.carry(call, symbols);
    return call;
  }

  private carry(call: MarketDataCall, symbols: string[]): void {
    setImmediate(() => {
      const current = this.current;
      if (current?.call !== call) return;
      const unknown = symbols.filter((symbol) => !this.known.has(symbol));
      if (unknown.length > 0) {
        this.current = undefined;
        this.refusals += 1;
        const details = this.names ? `unknown symbols: ${unknown.join(', ')}` : 'the request was refused';
        return current.listener.ended(call, { code: GrpcStatus.INVALID_ARGUMENT, details } satisfies StreamStatus);
      }
      for (const symbol of symbols) current.listener.message(call, { event: 'update', update: book(symbol) });
    });
  }
}

function book(symbol: string) {
  return {
    symbol,
    bids: [],
    offers: [],
    state: 'INSTRUMENT_STATE_OPEN' as const,
    stats: null,
    transactTime: null,
    bookHidden: false,
    priceScale: 2,
    quantityScale: 0,
  };
}

function sink(): TopicSink & { snapshots: number } {
  const recorded = {
    snapshots: 0,
    snapshot: () => void (recorded.snapshots += 1),
    update: () => undefined,
    gap: () => undefined,
  };
  return recorded;
}

const GOOD = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

describe(MarketDataLane.name, () => {
  let sut: MarketDataLane | undefined;
  afterEach(() => sut?.stop());

  it.each([
    ['server streaming', false],
    ['bidirectional', true],
  ])(
    'finds an unknown symbol no refusal names among symbols opened together (%s), and serves the others',
    async (_, bidi) => {
      const exchange = new FakeExchange(bidi, false);
      GOOD.forEach((symbol) => exchange.known.add(symbol));
      sut = new MarketDataLane(exchange.deps());
      const opened = [...GOOD, 'bad'].map((symbol) =>
        sut!.add(symbol, sink()).then(
          () => 'served',
          (error: Error) => error.message,
        ),
      );
      const outcomes = await Promise.all(opened);
      expect(outcomes.slice(0, GOOD.length)).toEqual(GOOD.map(() => 'served'));
      expect(outcomes.at(-1)).toContain('INVALID_ARGUMENT');
      expect(sut.symbols().sort()).toEqual(GOOD);
      // Halving 8 suspects: about two refused calls per halving (log2 8 = 3), not one per symbol.
      expect(exchange.refusals).toBeLessThanOrEqual(6);
    },
  );

  it('drops a symbol a refusal names and reopens at once for the rest', async () => {
    const exchange = new FakeExchange(false, true);
    GOOD.forEach((symbol) => exchange.known.add(symbol));
    sut = new MarketDataLane(exchange.deps());
    const outcomes = await Promise.all(
      ['a', 'bad', 'b'].map((symbol) =>
        sut!.add(symbol, sink()).then(
          () => 'served',
          (error: Error) => error.message,
        ),
      ),
    );
    expect(outcomes).toEqual(['served', expect.stringContaining('unknown symbols: bad'), 'served']);
    expect(exchange.opens).toBe(2);
  });

  it('keeps the other symbols streaming when a streamed one stops being known, unnamed, and reports it dropped', async () => {
    const exchange = new FakeExchange(true, false);
    GOOD.forEach((symbol) => exchange.known.add(symbol));
    sut = new MarketDataLane(exchange.deps());
    const sinks = GOOD.map(() => sink());
    await Promise.all(GOOD.map((symbol, i) => sut!.add(symbol, sinks[i]!)));
    exchange.known.delete('c');
    exchange.restart();
    for (let i = 0; i < 200 && exchange.dropped.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(exchange.dropped).toEqual(['c']);
    for (let i = 0; i < 200 && sinks.some((s, at) => at !== 2 && s.snapshots < 2); i++)
      await new Promise((r) => setTimeout(r, 5));
    // Each call of the search costs the symbols on it a fresh snapshot; the delisted one gets none.
    expect(sinks.map((s) => s.snapshots >= 2)).toEqual(GOOD.map((symbol) => symbol !== 'c'));
    expect(sinks[2]!.snapshots).toBe(1);
    expect(sut.symbols().sort()).toEqual(GOOD.filter((symbol) => symbol !== 'c'));
  });

  it('fails every waiting open on a refusal of the whole stream (the firm has no stream left)', async () => {
    const exchange = new FakeExchange(true, true);
    sut = new MarketDataLane(exchange.deps());
    const opens = ['a', 'b'].map((symbol) => sut!.add(symbol, sink()).catch((error: Error) => error.message));
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 100 && !exchange.current; i++) await new Promise((r) => setTimeout(r, 1));
    const { call, listener } = exchange.current!;
    exchange.current = undefined;
    listener.ended(call, { code: GrpcStatus.RESOURCE_EXHAUSTED, details: 'at most 20 streams' });
    expect(await Promise.all(opens)).toEqual([
      expect.stringContaining('RESOURCE_EXHAUSTED'),
      expect.stringContaining('RESOURCE_EXHAUSTED'),
    ]);
  });
});
