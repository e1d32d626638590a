import type { EngineContext } from './engine-context.js';
import type { OrderBook } from './order-book.js';
import type { Order } from './order.types.js';

/** Expires the instrument's open orders that `which` selects (resting and held stops alike). */
export function expireOrders(ctx: EngineContext, book: OrderBook, which: (order: Order) => boolean): void {
  for (const rec of book.openOrders()) {
    if (which(rec.order)) ctx.close(book, rec, 'ORDER_STATE_EXPIRED', 'EXECUTION_TYPE_EXPIRED');
  }
}

/** GOOD_TILL_TIME orders whose time has come. */
export function expireDue(ctx: EngineContext, now: number): void {
  for (const rec of ctx.goodTill.due(now)) {
    const book = ctx.books.get(rec.order.symbol);
    ctx.close(book, rec, 'ORDER_STATE_EXPIRED', 'EXECUTION_TYPE_EXPIRED', { text: 'good-till time reached' });
  }
}

/** The close of the trading day: DAY orders expire, session statistics roll, positions get a new start. */
export function endTradingDay(ctx: EngineContext): void {
  for (const book of ctx.books.values()) {
    expireOrders(ctx, book, (order) => order.timeInForce === 'TIME_IN_FORCE_DAY');
    book.rollSession();
    ctx.events.bookChanged(book.symbol);
  }
  ctx.ledger.rollDay();
}
