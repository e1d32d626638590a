import { runAuction } from './auction.js';
import type { EngineContext } from './engine-context.js';
import type { InstrumentState } from './engine.enums.js';
import { EngineError, EngineErrorCode } from './engine.error.js';
import { auctionsOn } from './instrument-state.rules.js';
import type { OrderBook } from './order-book.js';
import { expireOrders } from './order-expiry.js';
import { triggerStops } from './order-routing.js';

export interface StateChangeOptions {
  /** Price at which TERMINATED settles positions; default the last trade price, else 0. */
  settlementPx?: number;
}

/**
 * Moves an instrument to a new state with the side effects of spec 3.2: the auction on leaving
 * PREOPEN for OPEN (or leaving MATCH_AND_CLOSE_AUCTION), DAY orders expiring on CLOSED, every order
 * expiring on EXPIRED, and on TERMINATED the book emptied and positions settled. TERMINATED is final.
 */
export function changeState(
  ctx: EngineContext,
  symbol: string,
  to: InstrumentState,
  options: StateChangeOptions = {},
): void {
  const book = ctx.books.get(symbol);
  if (!book) throw new EngineError(EngineErrorCode.UNKNOWN_SYMBOL, `unknown symbol ${symbol}`);
  const instrument = book.instrument;
  const from = instrument.state;
  if (from === to) return;
  if (from === 'INSTRUMENT_STATE_TERMINATED') {
    throw new EngineError(EngineErrorCode.INSTRUMENT_STATE, `${symbol} is terminated`);
  }
  if (auctionsOn(from, to)) runAuction(ctx, book);
  instrument.state = to;
  instrument.updateTime = ctx.now();
  ctx.events.push('instrument', symbol, (seq) => ({
    symbol,
    seq,
    instrument: { symbol, state: to, nonTradable: instrument.nonTradable, updateTime: instrument.updateTime },
  }));
  ctx.events.bookChanged(symbol);
  if (to === 'INSTRUMENT_STATE_CLOSED') expireOrders(ctx, book, (order) => order.timeInForce === 'TIME_IN_FORCE_DAY');
  if (to === 'INSTRUMENT_STATE_EXPIRED') expireOrders(ctx, book, () => true);
  if (to === 'INSTRUMENT_STATE_TERMINATED') terminate(ctx, book, options.settlementPx);
  triggerStops(ctx, book);
}

function terminate(ctx: EngineContext, book: OrderBook, settlementPx: number | undefined): void {
  for (const rec of book.openOrders()) {
    ctx.close(book, rec, 'ORDER_STATE_CANCELED', 'EXECUTION_TYPE_CANCELED', {
      unsolicitedCancelReason: 'UNSOLICITED_CXL_REASON_INSTRUMENT_TERMINATED',
    });
  }
  const px = settlementPx ?? book.stats.lastTradePx ?? 0;
  book.stats.settlementPx = px;
  for (const position of ctx.ledger.settle(book.symbol, px, book.instrument.multiplier, ctx.now())) {
    ctx.positionMoved(book.symbol, position);
  }
}
