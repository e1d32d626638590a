import type { BookLevel, BookSnapshot, Instrument } from '../../engine/index.js';
import { int64 } from '../wire/int64-wire.js';
import { type ProtoRecord, timestamp } from './wire/stream-records.js';

/** polymarket.v1 CreateMarketDataSubscriptionRequest as the sandbox decodes it (defaults filled in). */
export interface MarketDataSubscriptionRequest {
  symbols: string[];
  unaggregated: boolean;
  depth: number;
  snapshotOnly: boolean;
}

/** polymarket.v1 BiDirectionalStreamMarketDataRequest: one message of the client's side. */
export interface MarketDataStreamRequest {
  addSymbols: string[];
  removeSymbols: string[];
  depth: number;
  unaggregated: boolean;
}

export type MarketDataResponse =
  { event: 'heartbeat'; heartbeat: Record<string, never> } | { event: 'update'; update: ProtoRecord };

export interface BookScales {
  priceScale: number;
  quantityScale: number;
}

export function scalesOf(instrument: Instrument): BookScales {
  return { priceScale: Number(instrument.priceScale), quantityScale: Number(instrument.fractionalQtyScale) };
}

function entry(level: BookLevel): { px: string; qty: string } {
  return { px: int64(level.px), qty: int64(level.qty) };
}

/**
 * An engine book as a polymarket.v1 MarketDataUpdate, `depth` levels a side. `transactTime` is when
 * the book last changed, so a snapshot of an unchanged book is the same state as the last update.
 * Prices the session has not had yet are 0 (proto3 has no absent int64 without `optional`).
 */
export function updateMessage(
  book: BookSnapshot,
  depth: number,
  transactTime: number,
  scales: BookScales,
): ProtoRecord {
  const { stats } = book;
  return {
    symbol: book.symbol,
    bids: book.bids.slice(0, depth).map(entry),
    offers: book.offers.slice(0, depth).map(entry),
    state: book.state,
    stats: {
      lastTradePx: int64(stats.lastTradePx ?? 0),
      lastTradeQty: int64(stats.lastTradeQty ?? 0),
      openPx: int64(stats.openPx ?? 0),
      highPx: int64(stats.highPx ?? 0),
      lowPx: int64(stats.lowPx ?? 0),
      closePx: int64(stats.closePx ?? 0),
      sharesTraded: int64(stats.sharesTraded),
      openInterest: int64(stats.openInterest),
      notionalTraded: int64(stats.notionalTraded),
      settlementPx: int64(stats.settlementPx ?? 0),
      indicativeOpenPx: int64(stats.indicativeOpenPx ?? 0),
    },
    transactTime: timestamp(transactTime),
    // The engine does not run the schedule's hidden phases, so books are always shown.
    bookHidden: false,
    ...scales,
  };
}
