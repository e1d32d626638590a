import type { MarketDataUpdateMessage, OrderRequest } from '@lib/exchange';

/** The reference price a band is drawn around, in dollars, and how it was taken. */
export interface Reference {
  price: number;
  source: 'mid' | 'last-trade';
  /** How long ago the book it came from was last heard from the stream (ms). */
  ageMs: number;
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

const NONZERO = (px: string | undefined): number | undefined =>
  px === undefined || px === '0' ? undefined : Number(px);

/** Best bid and ask in the book's own integer units (undefined when that side is empty). */
export function touch(update: MarketDataUpdateMessage): { bid?: number; ask?: number } {
  return { bid: NONZERO(update.bids[0]?.px), ask: NONZERO(update.offers[0]?.px) };
}

/** Mid when both sides are there and the spread is tight, else the last trade; undefined when the book has neither. */
export function referenceOf(book: BookSeen, rules: BandRules, now: number): Reference | undefined {
  const unit = 10 ** book.update.priceScale;
  const { bid, ask } = touch(book.update);
  const ageMs = Math.max(0, now - book.receivedAt);
  if (bid !== undefined && ask !== undefined && (ask - bid) / unit <= rules.tightSpread + 1e-9)
    return { price: (bid + ask) / 2 / unit, source: 'mid', ageMs };
  const last = NONZERO(book.update.stats?.lastTradePx);
  return last === undefined ? undefined : { price: last / unit, source: 'last-trade', ageMs };
}

/**
 * Whether the order would execute at once: a market(-to-limit) order always; a limit buy at or above the
 * best ask, a limit sell at or below the best bid. Stop orders rest until triggered. With no live book the
 * answer is unknown, so every order that could execute at once is taken as one (fail closed).
 */
export function isAggressive(order: OrderRequest, book: BookSeen | undefined, scale: number): boolean {
  if (order.type === 'ORDER_TYPE_STOP' || order.type === 'ORDER_TYPE_STOP_LIMIT') return false;
  if (order.type === 'ORDER_TYPE_MARKET_TO_LIMIT' || order.price === undefined) return true;
  if (!book) return true;
  const price = Number(order.price) / 10 ** scale;
  const unit = 10 ** book.update.priceScale;
  const { bid, ask } = touch(book.update);
  return order.side === 'SIDE_BUY'
    ? ask !== undefined && price >= ask / unit - 1e-9
    : bid !== undefined && price <= bid / unit + 1e-9;
}
