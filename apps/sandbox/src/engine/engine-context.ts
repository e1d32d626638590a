import { EngineEvents, type BookEvent } from './engine-events.js';
import type { ExecutionType, OrderState } from './engine.enums.js';
import { EngineError, EngineErrorCode } from './engine.error.js';
import { GoodTillSchedule } from './good-till-schedule.js';
import type { Instrument } from './instrument.types.js';
import type { OrderBook } from './order-book.js';
import { isStop } from './order-predicates.js';
import { OrderRecord } from './order-record.js';
import type { CancelRequest, Execution, Order, Trade } from './order.types.js';
import { PositionLedger, type Balance, type Position } from './position-ledger.js';
import { tradeDateOf } from './trade-date.js';

/** Fields an execution sets beyond the defaults. */
export type ExecutionDetails = Partial<
  Pick<
    Execution,
    'lastShares' | 'lastPx' | 'tradeId' | 'aggressor' | 'text' | 'orderRejectReason' | 'unsolicitedCancelReason'
  >
>;

/**
 * The engine's shared state and the primitives every operation is built from: register, accept,
 * execute, fill, close. Operations live in their own files and take this context.
 */
export class EngineContext {
  readonly instruments = new Map<string, Instrument>();
  readonly books = new Map<string, OrderBook>();
  /** Every order ever created, by seq. */
  readonly records: OrderRecord[] = [];
  readonly byId = new Map<string, OrderRecord>();
  readonly openByAccount = new Map<string, Set<OrderRecord>>();
  readonly trades: Trade[] = [];
  readonly goodTill = new GoodTillSchedule();
  readonly ledger: PositionLedger;
  readonly events: EngineEvents;
  /** Executions of the operation in progress, so it can return its caller's. */
  opExecutions: Execution[] = [];
  private readonly clordIds = new Map<string, OrderRecord>();
  private executionCount = 0;
  private tradeCount = 0;

  constructor(
    readonly clock: () => number,
    initialBalance: number,
    bookEvent: (symbol: string, seq: number) => BookEvent,
  ) {
    this.ledger = new PositionLedger(initialBalance);
    this.events = new EngineEvents(bookEvent);
  }

  now(): number {
    return this.clock();
  }

  register(order: Order): OrderRecord {
    const rec = new OrderRecord(order, this.records.length);
    this.records.push(rec);
    this.byId.set(order.id, rec);
    return rec;
  }

  /**
   * A clordId is unique among an account's open orders only: once its order has filled, expired or been
   * canceled it is accepted again as a new order (upstream-facts.md, "Order safety").
   */
  assertClordIdFree(account: string, clordId: string): void {
    const holder = clordId ? this.clordIds.get(clordKey(account, clordId)) : undefined;
    if (holder && !holder.closed && holder.order.clordId === clordId) {
      throw new EngineError(
        EngineErrorCode.DUPLICATE_CLORD_ID,
        `clordId ${clordId} is already in use by an open order of this account`,
      );
    }
  }

  /** The newest order to take the clordId: a cancel by clordId names it. */

  claimClordId(rec: OrderRecord, clordId: string): void {
    if (clordId) this.clordIds.set(clordKey(rec.order.account, clordId), rec);
  }

  /** The caller's order; someone else's order is reported missing rather than forbidden. */
  owned(request: CancelRequest): OrderRecord {
    const rec = request.orderId
      ? this.byId.get(request.orderId)
      : this.clordIds.get(clordKey(request.account, request.clordId ?? ''));
    if (!rec || rec.order.account !== request.account) {
      throw new EngineError(
        EngineErrorCode.ORDER_NOT_FOUND,
        `order ${request.orderId ?? request.clordId ?? ''} not found`,
      );
    }
    return rec;
  }

  accept(rec: OrderRecord): void {
    const order = rec.order;
    order.state = 'ORDER_STATE_NEW';
    this.claimClordId(rec, order.clordId);
    let open = this.openByAccount.get(order.account);
    if (!open) this.openByAccount.set(order.account, (open = new Set()));
    open.add(rec);
    if (order.timeInForce === 'TIME_IN_FORCE_GOOD_TILL_TIME') this.goodTill.add(rec);
    this.execute(rec, 'EXECUTION_TYPE_NEW');
  }

  execute(rec: OrderRecord, type: ExecutionType, details: ExecutionDetails = {}): Execution {
    const now = this.now();
    const execution: Execution = {
      id: `E${++this.executionCount}`,
      tradeId: '',
      traceId: '',
      text: '',
      order: rec.snapshot(),
      lastShares: 0,
      lastPx: 0,
      commissionNotionalCollected: 0,
      commissionSpreadPx: 0,
      type,
      transactTime: now,
      transactTradeDate: tradeDateOf(now),
      aggressor: false,
      legPrices: [],
      ...details,
    };
    rec.lastExecution = execution;
    this.opExecutions.push(execution);
    const symbol = rec.order.symbol;
    this.events.push('execution', symbol, (seq) => ({ symbol, seq, execution }));
    return execution;
  }

  /** Ends an order's working life: out of the book and the indexes, leaves zeroed, one execution. */
  close(
    book: OrderBook | undefined,
    rec: OrderRecord,
    state: OrderState,
    type: ExecutionType,
    details: ExecutionDetails = {},
  ): Execution {
    if (book) this.untrack(book, rec);
    const order = rec.order;
    order.leavesQty = 0;
    order.state = state;
    order.lastTransactTime = this.now();
    rec.close();
    return this.execute(rec, type, details);
  }

  rest(book: OrderBook, rec: OrderRecord): void {
    book.side(rec.order.side).append(rec);
    this.events.bookChanged(book.symbol);
  }

  /** One trade between two orders at `px`; `aggressor` is false in an auction, where neither side is. */
  fill(book: OrderBook, taker: OrderRecord, maker: OrderRecord, qty: number, px: number, aggressor = true): void {
    const now = this.now();
    const takerBuys = taker.order.side === 'SIDE_BUY';
    const [buy, sell] = takerBuys ? [taker.order, maker.order] : [maker.order, taker.order];
    const trade: Trade = {
      tradeId: `T${++this.tradeCount}`,
      symbol: book.symbol,
      px,
      qty,
      transactTime: now,
      transactTradeDate: tradeDateOf(now),
      aggressorSide: aggressor ? taker.order.side : undefined,
      buyOrderId: buy.id,
      sellOrderId: sell.id,
      buyAccount: buy.account,
      sellAccount: sell.account,
      cleared: true,
    };
    book.recordTrade(trade);
    this.trades.push(trade);
    this.applyFill(book, taker, trade, aggressor);
    this.applyFill(book, maker, trade, false);
    this.events.push('trade', book.symbol, (seq) => ({ symbol: book.symbol, seq, trade }));
    this.events.bookChanged(book.symbol);
  }

  balanceOf(account: string): Balance {
    const cash = this.ledger.cashOf(account);
    let openOrders = 0;
    for (const rec of this.openByAccount.get(account) ?? []) {
      const order = rec.order;
      if (order.side === 'SIDE_BUY') openOrders += order.leavesQty * order.price * this.multiplier(order.symbol);
    }
    const buyingPower = cash.amount - openOrders;
    return {
      account,
      currency: 'USD',
      currentBalance: cash.amount,
      buyingPower,
      openOrders,
      updateTime: cash.updateTime,
    };
  }

  /** A position changed, and with it the account's cash. */
  positionMoved(symbol: string, position: Position): void {
    this.events.push('position', symbol, (seq) => ({ symbol, seq, position: { ...position } }));
    this.events.push('balance', symbol, (seq) => ({ symbol, seq, balance: this.balanceOf(position.account) }));
  }

  private applyFill(book: OrderBook, rec: OrderRecord, trade: Trade, aggressor: boolean): void {
    const order = rec.order;
    const { qty, px } = trade;
    book.side(order.side).adjust(rec, -qty);
    order.cumQty += qty;
    order.leavesQty -= qty;
    rec.notional += qty * px;
    rec.lastFillPx = px;
    order.avgPx = Math.round(rec.notional / order.cumQty);
    order.lastTradeId = trade.tradeId;
    order.lastTransactTime = trade.transactTime;
    const done = order.leavesQty === 0;
    order.state = done ? 'ORDER_STATE_FILLED' : 'ORDER_STATE_PARTIALLY_FILLED';
    if (done) {
      this.untrack(book, rec);
      rec.close();
    }
    const type = done ? 'EXECUTION_TYPE_FILL' : 'EXECUTION_TYPE_PARTIAL_FILL';
    this.execute(rec, type, { lastShares: qty, lastPx: px, tradeId: trade.tradeId, aggressor });
    const signed = order.side === 'SIDE_BUY' ? qty : -qty;
    this.positionMoved(
      book.symbol,
      this.ledger.applyFill(order.account, book.symbol, signed, px, book.instrument.multiplier, trade.transactTime),
    );
  }

  private untrack(book: OrderBook, rec: OrderRecord): void {
    if (rec.level) {
      book.side(rec.order.side).remove(rec);
      this.events.bookChanged(book.symbol);
    } else if (!rec.triggered && isStop(rec.order)) {
      book.unholdStop(rec);
    }
    this.openByAccount.get(rec.order.account)?.delete(rec);
    this.goodTill.delete(rec);
  }

  private multiplier(symbol: string): number {
    return this.instruments.get(symbol)?.multiplier ?? 1;
  }
}

function clordKey(account: string, clordId: string): string {
  return `${account}\u0000${clordId}`;
}
