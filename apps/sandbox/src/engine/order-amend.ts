import { crossesBook, limitPriceOf } from './contra-walk.js';
import type { EngineContext } from './engine-context.js';
import type { OrdRejectReason } from './engine.enums.js';
import { EngineError, EngineErrorCode } from './engine.error.js';
import { allowsCancel, allowsEntry, allowsMatching } from './instrument-state.rules.js';
import type { OrderBook } from './order-book.js';
import { resultOf } from './order-entry.js';
import { isImmediate } from './order-predicates.js';
import type { OrderRecord } from './order-record.js';
import { route } from './order-routing.js';
import { termsRejectReason } from './order-validation.js';
import type { CancelRequest, Execution, Order, OrderResult, ReplaceRequest } from './order.types.js';

const REPLACEABLE = [
  'clordId',
  'price',
  'orderQty',
  'timeInForce',
  'stopPrice',
  'minQty',
  'allOrNone',
  'participateDontInitiate',
  'strictLimit',
  'goodTillTime',
  'bestLimit',
  'immediatelyExecutableLimit',
  'manualOrderIndicator',
] as const satisfies readonly (keyof ReplaceRequest & keyof Order)[];

/** A refused cancel is also raised as a `cancelReject` event (delivered after the operation, thrown or not). */
export function cancelOrder(ctx: EngineContext, request: CancelRequest): Execution {
  try {
    return cancelOpenOrder(ctx, request);
  } catch (error) {
    if (error instanceof EngineError) {
      const found = request.orderId ? ctx.byId.get(request.orderId)?.order : undefined;
      // Another account's order stays unnamed: the reject goes to the requester's streams.
      const order = found?.account === request.account ? found : undefined;
      const symbol = order?.symbol ?? '';
      const reject = {
        account: request.account,
        orderId: request.orderId ?? order?.id ?? '',
        clordId: request.clordId ?? '',
        text: error.message,
        transactTime: ctx.now(),
      };
      ctx.events.push('cancelReject', symbol, (seq) => ({ symbol, seq, reject }));
    }
    throw error;
  }
}

function cancelOpenOrder(ctx: EngineContext, request: CancelRequest): Execution {
  const rec = ctx.owned(request);
  const book = openBookOf(ctx, rec);
  if (!allowsCancel(book.instrument.state)) {
    throw new EngineError(
      EngineErrorCode.INSTRUMENT_STATE,
      `${book.symbol} is ${book.instrument.state}: cancels are not accepted`,
    );
  }
  return ctx.close(book, rec, 'ORDER_STATE_CANCELED', 'EXECUTION_TYPE_CANCELED');
}

/** Cancels the account's open orders (optionally only on `symbols`) where the instrument allows it. */
export function cancelAllOrders(ctx: EngineContext, account: string, symbols: readonly string[] = []): string[] {
  const canceled: string[] = [];
  for (const rec of [...(ctx.openByAccount.get(account) ?? [])]) {
    const book = ctx.books.get(rec.order.symbol);
    if (!book || (symbols.length > 0 && !symbols.includes(book.symbol)) || !allowsCancel(book.instrument.state))
      continue;
    ctx.close(book, rec, 'ORDER_STATE_CANCELED', 'EXECUTION_TYPE_CANCELED');
    canceled.push(rec.order.id);
  }
  return canceled;
}

/**
 * Cancel-replace in place: the order keeps its id. It keeps its queue place unless the price changes
 * or the quantity grows; then it re-enters and may trade at once. Invalid terms throw and leave the
 * order as it was.
 */
export function replaceOrder(ctx: EngineContext, request: ReplaceRequest): OrderResult {
  const rec = ctx.owned({ account: request.account, orderId: request.orderId });
  const book = openBookOf(ctx, rec);
  if (request.symbol && request.symbol !== rec.order.symbol) {
    throw new EngineError(EngineErrorCode.INVALID_REQUEST, 'a replace cannot change the symbol');
  }
  if (!allowsEntry(book.instrument.state)) {
    throw new EngineError(
      EngineErrorCode.INSTRUMENT_STATE,
      `${book.symbol} is ${book.instrument.state}: orders cannot be modified`,
    );
  }
  const changed = withChanges(rec.order, request);
  const reason = replaceRejectReason(ctx, book, rec, changed);
  if (reason) throw new EngineError(EngineErrorCode.INVALID_REQUEST, `replace rejected: ${reason}`, reason);
  if (changed.clordId !== rec.order.clordId) {
    ctx.assertClordIdFree(rec.order.account, changed.clordId);
    ctx.claimClordId(rec, changed.clordId);
  }
  applyReplace(ctx, book, rec, changed);
  return resultOf(ctx, rec);
}

function applyReplace(ctx: EngineContext, book: OrderBook, rec: OrderRecord, changed: Order): void {
  const order = rec.order;
  const side = book.side(order.side);
  // An order that turns immediate goes back in too, so it trades or cancels instead of resting as an IOC.
  const requeue =
    rec.level !== null &&
    (changed.price !== order.price || changed.leavesQty > order.leavesQty || isImmediate(changed));
  if (requeue) side.remove(rec);
  else side.adjust(rec, changed.leavesQty - order.leavesQty);
  ctx.goodTill.delete(rec);
  Object.assign(order, changed, { lastTransactTime: ctx.now() });
  if (order.timeInForce === 'TIME_IN_FORCE_GOOD_TILL_TIME') ctx.goodTill.add(rec);
  ctx.execute(rec, 'EXECUTION_TYPE_REPLACE');
  ctx.events.bookChanged(book.symbol);
  if (requeue) {
    order.insertTime = ctx.now();
    route(ctx, book, rec, false);
  }
}

function replaceRejectReason(
  ctx: EngineContext,
  book: OrderBook,
  rec: OrderRecord,
  changed: Order,
): OrdRejectReason | undefined {
  const reason = termsRejectReason(changed, book.instrument, book.stats.lastTradePx, ctx.now());
  if (reason) return reason;
  if (changed.orderQty <= rec.order.cumQty) return 'ORD_REJECT_REASON_INVALID_QUANTITY';
  const matching = allowsMatching(book.instrument.state);
  if (!matching && isImmediate(changed)) return 'ORD_REJECT_REASON_INVALID_TIME_IN_FORCE';
  const wouldCross = matching && rec.level !== null && crossesBook(book, changed, limitPriceOf(book, changed));
  return changed.participateDontInitiate && wouldCross ? 'ORD_REJECT_REASON_WOULD_MATCH_IMMEDIATELY' : undefined;
}

function withChanges(order: Order, request: ReplaceRequest): Order {
  const changed: Order = { ...order };
  for (const key of REPLACEABLE) copyDefined(changed, request, key);
  changed.leavesQty = changed.orderQty - changed.cumQty;
  return changed;
}

function copyDefined<K extends (typeof REPLACEABLE)[number]>(target: Order, source: ReplaceRequest, key: K): void {
  const value = source[key];
  if (value !== undefined) target[key] = value as Order[K];
}

/** The book of an order that can still be canceled or replaced. */
function openBookOf(ctx: EngineContext, rec: OrderRecord): OrderBook {
  const book = ctx.books.get(rec.order.symbol);
  const open = rec.order.state === 'ORDER_STATE_NEW' || rec.order.state === 'ORDER_STATE_PARTIALLY_FILLED';
  if (!open || !book) {
    throw new EngineError(EngineErrorCode.ORDER_NOT_OPEN, `order ${rec.order.id} is ${rec.order.state}`);
  }
  return book;
}
