import { uncrossPrice } from './auction.js';
import type { BookLevel } from './book-side.js';
import type { InstrumentState } from './engine.enums.js';
import { allowsMatching } from './instrument-state.rules.js';
import type { OrderBook, SessionStats } from './order-book.js';

export interface BookStats extends SessionStats {
  /** Where the auction would uncross now; only while the instrument collects orders for one. */
  indicativeOpenPx?: number;
  openInterest: number;
}

/** Spec 2.6 with numbers: the REST layer writes px and qty as int64 strings. */
export interface BookSnapshot {
  symbol: string;
  /** Aggregated by price, best (highest) first. */
  bids: BookLevel[];
  /** Aggregated by price, best (lowest) first. */
  offers: BookLevel[];
  state: InstrumentState;
  stats: BookStats;
  transactTime: number;
}

/** Best bid and offer, for the exchange's /bbo and the retail market-data-lite channel. */
export interface Bbo {
  symbol: string;
  bestBid?: BookLevel;
  bestAsk?: BookLevel;
  /** Number of price levels on each side. */
  bidDepth: number;
  askDepth: number;
  lastTradePx?: number;
  sharesTraded: number;
  openInterest: number;
  state: InstrumentState;
  transactTime: number;
}

export function bookSnapshot(book: OrderBook, depth: number, openInterest: number, now: number): BookSnapshot {
  const state = book.instrument.state;
  const indicativeOpenPx = allowsMatching(state) ? undefined : uncrossPrice(book);
  const stats: BookStats = { ...book.stats, openInterest };
  if (indicativeOpenPx !== undefined) stats.indicativeOpenPx = indicativeOpenPx;
  return { symbol: book.symbol, bids: book.bids.depth(depth), offers: book.offers.depth(depth), state, stats, transactTime: now };
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
