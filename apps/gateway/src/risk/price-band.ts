import type { MarketDataUpdateMessage, OrderRequest } from '@lib/exchange';

/** The reference price a band is drawn around, in dollars, and how it was taken. */
export interface Reference {
  price: number;
  source: 'mid' | 'last-trade';
  /** How long ago the book it came from was last heard from the stream (ms). */
  ageMs: number;
}

/**
 * What the band reads of a market's streamed book, whichever surface streamed it: the best bid and
 * ask and the last trade in dollars (absent when there is none), and when the stream last spoke of
 * it (the gateway's steady clock, ms).
 */
export interface Quote {
  bid?: number;
  ask?: number;
  last?: number;
  receivedAt: number;
}

/**
 * An order as the band judges it, on the book's own side (a retail short intent mirrored onto the long
 * book): `market` executes at the touch, `limit` at its price when it crosses, `stop` rests until
 * triggered; `either` is a side not known (a close-position), judged against both touches.
 */
export interface BandOrder {
  side: 'buy' | 'sell' | 'either';
  kind: 'limit' | 'market' | 'stop';
  /** Dollars; a limit's price. */
  price?: number;
  /** Dollars; a market order's worst price, bounded by a retail slippage tolerance: it executes at once, never past this. */
  bound?: number;
}

/** The stream-kept book of the order's symbol as the band reads it; undefined while no live book is known. */
export interface BookSeen {
  update: MarketDataUpdateMessage;
  receivedAt: number;
}

export interface BandRules {
  /** The reference is the mid while ask − bid is at most this (dollars), else the last trade. */
  tightSpread: number;
}

const EPSILON = 1e-9;

const NONZERO = (px: string | undefined): number | undefined =>
  px === undefined || px === '0' ? undefined : Number(px);

/** Best bid and ask in the book's own integer units (undefined when that side is empty). */
export function touch(update: MarketDataUpdateMessage): { bid?: number; ask?: number } {
  return { bid: NONZERO(update.bids[0]?.px), ask: NONZERO(update.offers[0]?.px) };
}

/** An exchange streamed book in dollars. */
export function exchangeQuote(book: BookSeen): Quote {
  const unit = 10 ** book.update.priceScale;
  const { bid, ask } = touch(book.update);
  const last = NONZERO(book.update.stats?.lastTradePx);
  return {
    ...(bid === undefined ? {} : { bid: bid / unit }),
    ...(ask === undefined ? {} : { ask: ask / unit }),
    ...(last === undefined ? {} : { last: last / unit }),
    receivedAt: book.receivedAt,
  };
}

/** An exchange order in the band's terms (prices are int64 in 10^-scale dollars). */
export function exchangeBandOrder(order: OrderRequest, scale: number): BandOrder {
  const side = order.side === 'SIDE_BUY' ? 'buy' : 'sell';
  if (order.type === 'ORDER_TYPE_STOP' || order.type === 'ORDER_TYPE_STOP_LIMIT') return { side, kind: 'stop' };
  if (order.type === 'ORDER_TYPE_MARKET_TO_LIMIT' || order.price === undefined) return { side, kind: 'market' };
  return { side, kind: 'limit', price: Number(order.price) / 10 ** scale };
}

/** Mid when both sides are there and the spread is tight, else the last trade; undefined when the book has neither. */
export function quoteReference(quote: Quote, rules: BandRules, now: number): Reference | undefined {
  const ageMs = Math.max(0, now - quote.receivedAt);
  const { bid, ask, last } = quote;
  if (bid !== undefined && ask !== undefined && ask - bid <= rules.tightSpread + EPSILON)
    return { price: Math.round(((bid + ask) / 2) * 1e9) / 1e9, source: 'mid', ageMs }; // no binary noise in a named price
  return last === undefined ? undefined : { price: last, source: 'last-trade', ageMs };
}

/**
 * Whether the order would execute at once: a market order always; a limit buy at or above the best ask,
 * a limit sell at or below the best bid. Stop orders rest until triggered. With no live book the answer
 * is unknown, so every order that could execute at once is taken as one (fail closed).
 */
export function wouldExecute(order: BandOrder, quote: Quote | undefined): boolean {
  if (order.kind === 'stop') return false;
  if (order.kind === 'market' || order.price === undefined || order.side === 'either' || !quote) return true;
  return order.side === 'buy'
    ? quote.ask !== undefined && order.price >= quote.ask - EPSILON
    : quote.bid !== undefined && order.price <= quote.bid + EPSILON;
}

/**
 * The prices the order would execute at: a limit's own, a bounded market order's worst, a market
 * order's touch (both touches when its side is unknown).
 */
export function executionPrices(order: BandOrder, quote: Quote | undefined): number[] {
  if (order.kind === 'limit' && order.price !== undefined) return [order.price];
  if (order.kind === 'market' && order.bound !== undefined) return [order.bound];
  const touches = order.side === 'buy' ? [quote?.ask] : order.side === 'sell' ? [quote?.bid] : [quote?.bid, quote?.ask];
  return touches.filter((px): px is number => px !== undefined);
}

/** The exchange book's reference (see quoteReference). */
export function referenceOf(book: BookSeen, rules: BandRules, now: number): Reference | undefined {
  return quoteReference(exchangeQuote(book), rules, now);
}

/** Whether an exchange order would execute at once against its streamed book (see wouldExecute). */
export function isAggressive(order: OrderRequest, book: BookSeen | undefined, scale: number): boolean {
  return wouldExecute(exchangeBandOrder(order, scale), book && exchangeQuote(book));
}
