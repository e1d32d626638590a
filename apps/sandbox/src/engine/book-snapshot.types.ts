import type { BookLevel } from './book-side.js';
import type { InstrumentState } from './engine.enums.js';
import type { SessionStats } from './order-book.js';

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
