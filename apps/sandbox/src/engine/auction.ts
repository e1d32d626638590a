import { cancelForSelfMatch } from './aggression.js';
import type { BookLevel, BookSide } from './book-side.js';
import type { EngineContext } from './engine-context.js';
import type { OrderBook } from './order-book.js';
import { preventsSelfMatch } from './order-predicates.js';
import type { OrderRecord } from './order-record.js';

interface Candidate {
  px: number;
  volume: number;
  imbalance: number;
  distance: number;
}

/**
 * The uncrossing price: the one that executes the most volume; ties go to the smaller imbalance, then
 * to the price nearest the last trade (or the mid of the crossed range), then to the lower price.
 * All-or-none orders sit the auction out. Undefined when the book does not cross.
 */
export function uncrossPrice(book: OrderBook): number | undefined {
  const bids = auctionLevels(book.bids);
  const asks = auctionLevels(book.offers);
  if (bids.length === 0 || asks.length === 0 || bids[0].px < asks[0].px) return undefined;
  const reference = book.stats.lastTradePx ?? (bids[0].px + asks[0].px) / 2;
  const prices = [...bids, ...asks].map((level) => level.px).filter((px) => px >= asks[0].px && px <= bids[0].px);
  let best: Candidate | undefined;
  for (const px of prices) {
    const buy = sumWhere(bids, (levelPx) => levelPx >= px);
    const sell = sumWhere(asks, (levelPx) => levelPx <= px);
    const candidate = {
      px,
      volume: Math.min(buy, sell),
      imbalance: Math.abs(buy - sell),
      distance: Math.abs(px - reference),
    };
    if (!best || better(candidate, best)) best = candidate;
  }
  return best?.px;
}

/** Trades every order that crosses at the uncrossing price, in price then time priority; no side is the aggressor. */
export function runAuction(ctx: EngineContext, book: OrderBook): void {
  const px = uncrossPrice(book);
  if (px === undefined) return;
  const buys = book.bids.orders().filter((rec) => !rec.order.allOrNone && rec.order.price >= px);
  const sells = book.offers.orders().filter((rec) => !rec.order.allOrNone && rec.order.price <= px);
  let b = 0;
  let s = 0;
  while (b < buys.length && s < sells.length) {
    const buy = buys[b];
    const sell = sells[s];
    if (buy.order.leavesQty === 0) b++;
    else if (sell.order.leavesQty === 0) s++;
    else if (preventsSelfMatch(buy.order, sell.order)) preventAuctionSelfMatch(ctx, book, buy, sell);
    else ctx.fill(book, buy, sell, Math.min(buy.order.leavesQty, sell.order.leavesQty), px, false);
  }
}

/** The later of the two orders counts as the aggressor, and its instruction decides who is canceled. */
function preventAuctionSelfMatch(ctx: EngineContext, book: OrderBook, a: OrderRecord, b: OrderRecord): void {
  const [earlier, later] =
    a.order.insertTime < b.order.insertTime || (a.order.insertTime === b.order.insertTime && a.seq < b.seq)
      ? [a, b]
      : [b, a];
  const instruction = later.order.selfMatchPreventionInstruction;
  if (instruction !== 'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING') cancelForSelfMatch(ctx, book, later);
  if (instruction !== 'SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR') cancelForSelfMatch(ctx, book, earlier);
}

function better(a: Candidate, b: Candidate): boolean {
  if (a.volume !== b.volume) return a.volume > b.volume;
  if (a.imbalance !== b.imbalance) return a.imbalance < b.imbalance;
  if (a.distance !== b.distance) return a.distance < b.distance;
  return a.px < b.px;
}

/** Quantity per price without all-or-none orders, best price first. */
function auctionLevels(side: BookSide): BookLevel[] {
  const levels: BookLevel[] = [];
  for (const rec of side.orders()) {
    if (rec.order.allOrNone) continue;
    const last = levels[levels.length - 1];
    if (last?.px === rec.order.price) last.qty += rec.order.leavesQty;
    else levels.push({ px: rec.order.price, qty: rec.order.leavesQty });
  }
  return levels;
}

function sumWhere(levels: readonly BookLevel[], keep: (px: number) => boolean): number {
  let sum = 0;
  for (const level of levels) if (keep(level.px)) sum += level.qty;
  return sum;
}
