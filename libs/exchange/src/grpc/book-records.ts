import type { OrderBookSnapshot } from '../schemas/order-book.schema.js';
import type { BookEntryMessage, MarketDataUpdateMessage, TimestampMessage } from './market-data.messages.js';

/** The BBO record of GET /v1/orderbook/{symbol}/bbo (not shown upstream; the sandbox's spelling). */
export interface BboRecord {
  symbol: string;
  bestBid?: BookEntryMessage;
  bestAsk?: BookEntryMessage;
  bidDepth: number;
  askDepth: number;
  lastTradePx?: string;
  sharesTraded: string;
  openInterest: string;
  state: string;
  transactTime: string;
}

export function timestampMs(time: TimestampMessage | null): number {
  return time ? Number(time.seconds) * 1000 + Math.floor(time.nanos / 1e6) : 0;
}

/** proto3 has no absent int64: a price the session has not had yet is 0 there, and left out in REST. */
const price = (px: string | undefined): string | undefined => (px === undefined || px === '0' ? undefined : px);

const level = (entry: BookEntryMessage): BookEntryMessage => ({ px: entry.px, qty: entry.qty });

/** Spec 2.6 from a stream message (absent values undefined: JSON.stringify leaves them out, as REST does): what GET /v1/orderbook/{symbol}?depth= answers for the same book. */
export function orderBookRecord(update: MarketDataUpdateMessage, depth: number): OrderBookSnapshot {
  const stats = update.stats;
  return {
    symbol: update.symbol,
    bids: update.bids.slice(0, depth).map(level),
    offers: update.offers.slice(0, depth).map(level),
    state: update.state,
    stats: stats
      ? {
          openPx: price(stats.openPx),
          closePx: price(stats.closePx),
          lowPx: price(stats.lowPx),
          highPx: price(stats.highPx),
          lastTradePx: price(stats.lastTradePx),
          indicativeOpenPx: price(stats.indicativeOpenPx),
          settlementPx: price(stats.settlementPx),
          sharesTraded: stats.sharesTraded,
          notionalTraded: stats.notionalTraded,
          openInterest: stats.openInterest,
        }
      : undefined,
    transactTime: new Date(timestampMs(update.transactTime)).toISOString(),
  };
}

/**
 * The BBO from a stream message. `bidDepth`/`askDepth` count the levels the stream carries (10 at
 * most), so a side deeper than that reads as 10 where the REST route counts every level.
 */
export function bboRecord(update: MarketDataUpdateMessage): BboRecord {
  const [bestBid] = update.bids;
  const [bestAsk] = update.offers;
  return {
    symbol: update.symbol,
    bestBid: bestBid && level(bestBid),
    bestAsk: bestAsk && level(bestAsk),
    bidDepth: update.bids.length,
    askDepth: update.offers.length,
    lastTradePx: price(update.stats?.lastTradePx),
    sharesTraded: update.stats?.sharesTraded ?? '0',
    openInterest: update.stats?.openInterest ?? '0',
    state: update.state,
    transactTime: new Date(timestampMs(update.transactTime)).toISOString(),
  };
}
