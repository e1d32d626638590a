import type { Bbo, BookLevel, BookSnapshot, Instrument } from '../../engine/index.js';
import { int64, isoTime, optionalInt64 } from './int64-wire.js';

export type InstrumentRecord = ReturnType<typeof instrumentRecord>;
export type BookRecord = ReturnType<typeof bookRecord>;

/** Spec 2.5 from the engine's instrument: limit bounds as int64 strings, times ISO. */
export function instrumentRecord(instrument: Instrument) {
  const { priceLimit, orderSizeLimit } = instrument;
  return {
    ...instrument,
    createTime: isoTime(instrument.createTime),
    updateTime: isoTime(instrument.updateTime),
    priceLimit: { ...priceLimit, low: int64(priceLimit.low), high: int64(priceLimit.high) },
    orderSizeLimit: {
      ...orderSizeLimit,
      low: int64(orderSizeLimit.low),
      high: int64(orderSizeLimit.high),
      totalNotionalLow: int64(orderSizeLimit.totalNotionalLow),
      totalNotionalHigh: int64(orderSizeLimit.totalNotionalHigh),
    },
  };
}

function level(entry: BookLevel): { px: string; qty: string } {
  return { px: int64(entry.px), qty: int64(entry.qty) };
}

/** Spec 2.6 from the engine's snapshot; a price the session has not had yet is left out. */
export function bookRecord(book: BookSnapshot) {
  const { stats } = book;
  return {
    symbol: book.symbol,
    bids: book.bids.map(level),
    offers: book.offers.map(level),
    state: book.state,
    stats: {
      openPx: optionalInt64(stats.openPx),
      closePx: optionalInt64(stats.closePx),
      lowPx: optionalInt64(stats.lowPx),
      highPx: optionalInt64(stats.highPx),
      lastTradePx: optionalInt64(stats.lastTradePx),
      indicativeOpenPx: optionalInt64(stats.indicativeOpenPx),
      settlementPx: optionalInt64(stats.settlementPx),
      sharesTraded: int64(stats.sharesTraded),
      notionalTraded: int64(stats.notionalTraded),
      openInterest: int64(stats.openInterest),
    },
    transactTime: isoTime(book.transactTime),
  };
}

/** The BBO record is not shown upstream; the sandbox answers with the same spellings as the book. */
export interface BboRecord {
  symbol: string;
  bestBid?: { px: string; qty: string };
  bestAsk?: { px: string; qty: string };
  bidDepth: number;
  askDepth: number;
  lastTradePx?: string;
  sharesTraded: string;
  openInterest: string;
  state: string;
  transactTime: string;
}

export function bboRecord(bbo: Bbo): BboRecord {
  return {
    symbol: bbo.symbol,
    ...(bbo.bestBid ? { bestBid: level(bbo.bestBid) } : {}),
    ...(bbo.bestAsk ? { bestAsk: level(bbo.bestAsk) } : {}),
    bidDepth: bbo.bidDepth,
    askDepth: bbo.askDepth,
    ...(bbo.lastTradePx === undefined ? {} : { lastTradePx: int64(bbo.lastTradePx) }),
    sharesTraded: int64(bbo.sharesTraded),
    openInterest: int64(bbo.openInterest),
    state: bbo.state,
    transactTime: isoTime(bbo.transactTime),
  };
}
