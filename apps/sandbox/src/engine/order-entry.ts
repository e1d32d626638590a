import { crossesBook, limitPriceOf, reachableQty, walkContra } from './contra-walk.js';
import type { EngineContext } from './engine-context.js';
import type { OrdRejectReason } from './engine.enums.js';
import { allowsMatching } from './instrument-state.rules.js';
import type { OrderBook } from './order-book.js';
import { newOrder } from './order-factory.js';
import { isCashOrder, isStop } from './order-predicates.js';
import type { OrderRecord } from './order-record.js';
import { route } from './order-routing.js';
import { entryRejectReason } from './order-validation.js';
import type { Order, OrderRequest, OrderResult } from './order.types.js';

export interface PreviewResult {
  order: Order;
  /** Set when the order would be rejected now. */
  rejectReason?: OrdRejectReason;
}

/** Inserts one order: a duplicate clordId throws, a refused order is recorded with a REJECTED execution. */
export function insertOrder(ctx: EngineContext, request: OrderRequest): OrderResult {
  ctx.assertClordIdFree(request.account, request.clordId ?? '');
  const rec = ctx.register(newOrder(`O${ctx.records.length + 1}`, request, ctx.now()));
  const book = ctx.books.get(request.symbol);
  const reason = admissionRejectReason(ctx, book, rec.order);
  if (reason !== undefined || !book) {
    const orderRejectReason = reason ?? 'ORD_REJECT_REASON_UNKNOWN_SYMBOL';
    ctx.close(undefined, rec, 'ORDER_STATE_REJECTED', 'EXECUTION_TYPE_REJECTED', {
      orderRejectReason,
      text: orderRejectReason,
    });
  } else {
    ctx.accept(rec);
    route(ctx, book, rec, true);
  }
  return resultOf(ctx, rec);
}

/** What insert would make of the request, without inserting anything. */
export function previewOrder(ctx: EngineContext, request: OrderRequest): PreviewResult {
  ctx.assertClordIdFree(request.account, request.clordId ?? '');
  const order = newOrder('', request, ctx.now());
  const rejectReason = admissionRejectReason(ctx, ctx.books.get(request.symbol), order);
  return rejectReason ? { order: { ...order, state: 'ORDER_STATE_REJECTED', leavesQty: 0 }, rejectReason } : { order };
}

export function resultOf(ctx: EngineContext, rec: OrderRecord): OrderResult {
  const id = rec.order.id;
  return {
    orderId: id,
    order: rec.snapshot(),
    executions: ctx.opExecutions.filter((execution) => execution.order.id === id),
  };
}

/** The request's terms first, then what only the current book can tell (when the order would trade now). */
function admissionRejectReason(
  ctx: EngineContext,
  book: OrderBook | undefined,
  order: Order,
): OrdRejectReason | undefined {
  const reason = entryRejectReason(order, book?.instrument, book?.stats.lastTradePx, ctx.now());
  if (reason || !book || isStop(order) || !allowsMatching(book.instrument.state)) return reason;
  return bookRejectReason(book, order);
}

function bookRejectReason(book: OrderBook, order: Order): OrdRejectReason | undefined {
  const limitPx = limitPriceOf(book, order);
  if (order.participateDontInitiate && crossesBook(book, order, limitPx))
    return 'ORD_REJECT_REASON_WOULD_MATCH_IMMEDIATELY';
  if (isCashOrder(order)) sizeCashOrder(book, order, limitPx);
  if (order.price === 0 && (order.leavesQty === 0 || !crossesBook(book, order, limitPx)))
    return 'ORD_REJECT_REASON_NO_LIQUIDITY';
  const rejectsAggressor =
    order.selfMatchPreventionInstruction === 'SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR';
  return rejectsAggressor && meetsSelfMatchFirst(book, order, limitPx) ? 'ORD_REJECT_REASON_SELF_MATCH' : undefined;
}

/** A cash order becomes an immediate order for as many contracts as the cash buys now (within the size limit). */
function sizeCashOrder(book: OrderBook, order: Order, limitPx: number): void {
  const limit = book.instrument.orderSizeLimit;
  const maxQty = limit.highSet ? limit.high : Number.MAX_SAFE_INTEGER;
  order.orderQty = order.leavesQty = reachableQty(book, order, limitPx, { maxQty, cash: order.cashOrderQty });
  if (order.timeInForce !== 'TIME_IN_FORCE_FILL_OR_KILL') order.timeInForce = 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL';
}

/** REJECT_AGGRESSOR refuses the order outright when the first order it would meet is one self-match prevention keeps it from. */
function meetsSelfMatchFirst(book: OrderBook, order: Order, limitPx: number): boolean {
  let self = false;
  const meetSelf = (): boolean => {
    self = true;
    return false;
  };
  walkContra(book, order, limitPx, { maxQty: 1, cash: Number.POSITIVE_INFINITY }, { take: () => undefined, meetSelf });
  return self;
}
