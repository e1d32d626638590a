import { uncrossPrice } from './auction.js';
import type { Bbo, BookSnapshot, BookStats } from './book-snapshot.types.js';
import { allowsMatching } from './instrument-state.rules.js';
import type { OrderBook } from './order-book.js';

export function bookSnapshot(book: OrderBook, depth: number, openInterest: number, now: number): BookSnapshot {
  const state = book.instrument.state;
  const indicativeOpenPx = allowsMatching(state) ? undefined : uncrossPrice(book);
  const stats: BookStats = { ...book.stats, openInterest };
  if (indicativeOpenPx !== undefined) stats.indicativeOpenPx = indicativeOpenPx;
  return {
    symbol: book.symbol,
    bids: book.bids.depth(depth),
    offers: book.offers.depth(depth),
    state,
    stats,
    transactTime: now,
  };
}

export function bestBidOffer(book: OrderBook, openInterest: number, now: number): Bbo {
  const [bestBid] = book.bids.depth(1);
  const [bestAsk] = book.offers.depth(1);
  return {
    symbol: book.symbol,
    bestBid,
    bestAsk,
    bidDepth: book.bids.levels.length,
    askDepth: book.offers.levels.length,
    lastTradePx: book.stats.lastTradePx,
    sharesTraded: book.stats.sharesTraded,
    openInterest,
    state: book.instrument.state,
    transactTime: now,
  };
}
