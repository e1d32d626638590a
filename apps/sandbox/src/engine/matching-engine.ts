import { bestBidOffer, bookSnapshot } from './book-snapshot.js';
import type { Bbo, BookSnapshot } from './book-snapshot.types.js';
import { EngineContext } from './engine-context.js';
import type { EngineEventKind, EngineListener } from './engine-events.js';
import type { InstrumentState } from './engine.enums.js';
import { EngineError, EngineErrorCode } from './engine.error.js';
import { changeState, type StateChangeOptions } from './instrument-states.js';
import type { Instrument } from './instrument.types.js';
import { instrumentsFixture } from './instruments.fixture.js';
import { cancelAllOrders, cancelOrder, replaceOrder } from './order-amend.js';
import { OrderBook } from './order-book.js';
import { insertOrder, previewOrder, type PreviewResult } from './order-entry.js';
import { endTradingDay, expireDue } from './order-expiry.js';
import {
  listTrades,
  searchOrders,
  type OrderSearchQuery,
  type OrderSearchResult,
  type TradeListQuery,
} from './order-search.js';
import type {
  CancelRequest,
  Execution,
  Order,
  OrderRequest,
  OrderResult,
  ReplaceRequest,
  Trade,
} from './order.types.js';
import type { Balance, Position } from './position-ledger.js';
import { tradeStatistics, type TradeStatsQuery, type TradeStatsResult } from './trade-stats.js';

export interface MatchingEngineOptions {
  /** Epoch milliseconds; the engine never reads the system clock. */
  clock: () => number;
  /** Default: the instruments fixture. Copied, so the caller's objects never change. */
  instruments?: readonly Instrument[];
  /** Cash every account starts with, in price units (cents for the fixture). Default 0. */
  initialBalance?: number;
  /** Most requests one batch call takes (spec 8: 20). */
  maxBatchSize?: number;
}

/** One item of a batch: its result, or the refusal that item alone got. */
export type BatchItem<T> = { ok: true; value: T } | { ok: false; error: EngineError };

const BOOK_EVENT_DEPTH = 10;

/**
 * An in-memory exchange: one price-time priority book per instrument, positions and cash per account,
 * synchronous events. Pure: no I/O, no timers; time comes from the injected clock and GOOD_TILL_TIME
 * orders expire on tick() or at the start of any call after their time.
 */
export class MatchingEngine {
  private readonly ctx: EngineContext;
  private readonly maxBatchSize: number;

  constructor(options: MatchingEngineOptions) {
    this.ctx = new EngineContext(options.clock, options.initialBalance ?? 0, (symbol, seq) => ({
      ...this.snapshot(symbol, BOOK_EVENT_DEPTH),
      seq,
    }));
    this.maxBatchSize = options.maxBatchSize ?? 20;
    for (const instrument of options.instruments ?? instrumentsFixture()) {
      const copy = structuredClone(instrument);
      this.ctx.instruments.set(copy.symbol, copy);
      this.ctx.books.set(copy.symbol, new OrderBook(copy));
    }
  }

  /** Listens to one kind of event; returns the function that stops listening. */
  on<K extends EngineEventKind>(kind: K, listener: EngineListener<K>): () => void {
    return this.ctx.events.on(kind, listener);
  }

  instruments(): Instrument[] {
    return this.run(() => [...this.ctx.instruments.values()].map((instrument) => structuredClone(instrument)));
  }

  instrument(symbol: string): Instrument | undefined {
    const instrument = this.ctx.instruments.get(symbol);
    return instrument && structuredClone(instrument);
  }

  setState(symbol: string, state: InstrumentState, options?: StateChangeOptions): void {
    this.run(() => changeState(this.ctx, symbol, state, options));
  }

  insert(request: OrderRequest): OrderResult {
    return this.run(() => insertOrder(this.ctx, request));
  }

  preview(request: OrderRequest): PreviewResult {
    return this.run(() => previewOrder(this.ctx, request));
  }

  /** Throws ORDER_NOT_FOUND (unknown, or another account's), ORDER_NOT_OPEN or INSTRUMENT_STATE. */
  cancel(request: CancelRequest): Execution {
    return this.run(() => cancelOrder(this.ctx, request));
  }

  /** Ids of the orders canceled; instruments that forbid cancels keep theirs. */
  cancelAll(account: string, symbols?: readonly string[]): string[] {
    return this.run(() => cancelAllOrders(this.ctx, account, symbols));
  }

  replace(request: ReplaceRequest): OrderResult {
    return this.run(() => replaceOrder(this.ctx, request));
  }

  insertBatch(requests: readonly OrderRequest[]): BatchItem<OrderResult>[] {
    return this.batch(requests, (request) => this.insert(request));
  }

  replaceBatch(requests: readonly ReplaceRequest[]): BatchItem<OrderResult>[] {
    return this.batch(requests, (request) => this.replace(request));
  }

  cancelBatch(requests: readonly CancelRequest[]): BatchItem<Execution>[] {
    return this.batch(requests, (request) => this.cancel(request));
  }

  /** Expires GOOD_TILL_TIME orders due at `now` (default: the clock). */
  tick(now?: number): void {
    this.run(() => expireDue(this.ctx, now ?? this.ctx.now()));
  }

  /** Close of the trading day: DAY orders expire, session statistics and beginning-of-day positions roll. */
  endOfDay(): void {
    this.run(() => endTradingDay(this.ctx));
  }

  order(orderId: string): Order | undefined {
    return this.run(() => {
      const rec = this.ctx.byId.get(orderId);
      return rec?.snapshot();
    });
  }

  lastExecution(orderId: string): Execution | undefined {
    return this.run(() => this.ctx.byId.get(orderId)?.lastExecution);
  }

  /** The account's working orders, oldest first, optionally only on `symbols`. */
  openOrders(account: string, symbols: readonly string[] = []): Order[] {
    return this.run(() =>
      [...(this.ctx.openByAccount.get(account) ?? [])]
        .filter((rec) => symbols.length === 0 || symbols.includes(rec.order.symbol))
        .sort((a, b) => a.seq - b.seq)
        .map((rec) => rec.snapshot()),
    );
  }

  searchOrders(query: OrderSearchQuery = {}): OrderSearchResult {
    return this.run(() => searchOrders(this.ctx.records, query));
  }

  trades(query: TradeListQuery = {}): { trades: Trade[]; nextPageToken: string } {
    return this.run(() => listTrades(this.tradesOf(query.symbol), query));
  }

  tradeStats(query: TradeStatsQuery = {}): TradeStatsResult {
    return this.run(() => tradeStatistics(this.tradesOf(query.symbol), query, this.ctx.now()));
  }

  /** Throws UNKNOWN_SYMBOL. A terminated instrument's book is empty. */
  book(symbol: string, depth = 3): BookSnapshot {
    return this.run(() => this.snapshot(symbol, depth));
  }

  bbo(symbol: string): Bbo {
    return this.run(() => bestBidOffer(this.bookOf(symbol), this.ctx.ledger.openInterestOf(symbol), this.ctx.now()));
  }

  positions(account: string): Position[] {
    return this.run(() => this.ctx.ledger.positionsOf(account).map((position) => ({ ...position })));
  }

  position(account: string, symbol: string): Position | undefined {
    return this.run(() => {
      const position = this.ctx.ledger.position(account, symbol);
      return position && { ...position };
    });
  }

  balance(account: string): Balance {
    return this.run(() => this.ctx.balanceOf(account));
  }

  /** Adds (or with a negative amount withdraws) cash, in price units. */
  deposit(account: string, amount: number): Balance {
    return this.run(() => {
      this.ctx.ledger.moveCash(account, amount, this.ctx.now());
      const balance = this.ctx.balanceOf(account);
      this.ctx.events.push('balance', '', (seq) => ({ symbol: '', seq, balance }));
      return balance;
    });
  }

  /** Every call starts by expiring what is due and ends by delivering the events it raised. */
  private run<T>(operation: () => T): T {
    const outer = this.ctx.opExecutions;
    this.ctx.opExecutions = [];
    try {
      expireDue(this.ctx, this.ctx.now());
      return operation();
    } finally {
      this.ctx.opExecutions = outer;
      this.ctx.events.flush();
    }
  }

  private batch<R, T>(requests: readonly R[], each: (request: R) => T): BatchItem<T>[] {
    if (requests.length > this.maxBatchSize) {
      throw new EngineError(EngineErrorCode.BATCH_TOO_LARGE, `at most ${this.maxBatchSize} requests per batch`);
    }
    return requests.map((request) => {
      try {
        return { ok: true, value: each(request) };
      } catch (error) {
        if (error instanceof EngineError) return { ok: false, error };
        throw error;
      }
    });
  }

  /** One instrument's trades when a query names it, so it need not scan everyone's. */
  private tradesOf(symbol: string | undefined): readonly Trade[] {
    return symbol ? (this.ctx.books.get(symbol)?.trades ?? []) : this.ctx.trades;
  }

  private bookOf(symbol: string): OrderBook {
    const book = this.ctx.books.get(symbol);
    if (!book) throw new EngineError(EngineErrorCode.UNKNOWN_SYMBOL, `unknown symbol ${symbol}`);
    return book;
  }

  private snapshot(symbol: string, depth: number): BookSnapshot {
    return bookSnapshot(this.bookOf(symbol), depth, this.ctx.ledger.openInterestOf(symbol), this.ctx.now());
  }
}
