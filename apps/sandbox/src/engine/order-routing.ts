import { aggress } from './aggression.js';
import type { EngineContext } from './engine-context.js';
import { allowsMatching } from './instrument-state.rules.js';
import type { OrderBook } from './order-book.js';
import { isStop, stopTriggeredBy } from './order-predicates.js';
import type { OrderRecord } from './order-record.js';

/**
 * Sends an accepted order where it belongs: a stop waits for its trigger, otherwise it trades (when
 * the instrument matches) and rests. Trades may trigger waiting stops, which then enter in turn.
 */
export function route(ctx: EngineContext, book: OrderBook, rec: OrderRecord, entry: boolean): void {
  if (isStop(rec.order) && !rec.triggered) {
    book.stops.push(rec);
    return;
  }
  if (allowsMatching(book.instrument.state)) aggress(ctx, book, rec, entry);
  else ctx.rest(book, rec);
  triggerStops(ctx, book);
}

/**
 * Fires every stop the last trade price has reached, oldest first. A fired stop trades as a
 * market-to-limit (STOP) or limit (STOP_LIMIT) order and takes its queue place at the trigger time;
 * its own trades can fire further stops, hence the loop.
 */
export function triggerStops(ctx: EngineContext, book: OrderBook): void {
  while (book.stops.length > 0 && allowsMatching(book.instrument.state)) {
    const last = book.stats.lastTradePx;
    const at = book.stops.findIndex((rec) => stopTriggeredBy(rec.order, last));
    if (at < 0) return;
    const [rec] = book.stops.splice(at, 1);
    rec.triggered = true;
    rec.order.insertTime = ctx.now();
    aggress(ctx, book, rec, true);
  }
}
