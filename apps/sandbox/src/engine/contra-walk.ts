import type { OrderBook } from './order-book.js';
import { preventsSelfMatch } from './order-predicates.js';
import type { OrderRecord } from './order-record.js';
import type { Order } from './order.types.js';

/** What the walk does with the orders it meets; the live match and the dry run differ only here. */
export interface WalkHandlers {
  take(resting: OrderRecord, qty: number, px: number): void;
  /** An order self-match prevention keeps from trading with the aggressor: true walks past it, false stops the walk. */
  meetSelf(resting: OrderRecord): boolean;
}

export interface WalkBudget {
  maxQty: number;
  /** Cash to spend (price units x multiplier); Infinity for an order sized in contracts. */
  cash: number;
}

export interface WalkResult {
  taken: number;
  selfStopped: boolean;
}

/**
 * Walks the resting orders an aggressor reaches, best price first and time priority within a price,
 * trading at the resting price. A resting all-or-none order is passed over unless it can be filled whole.
 */
export function walkContra(
  book: OrderBook,
  order: Order,
  limitPx: number,
  budget: WalkBudget,
  handlers: WalkHandlers,
): WalkResult {
  const contra = book.contra(order.side);
  const unit = book.instrument.multiplier;
  const levels = contra.levels;
  let taken = 0;
  let cashLeft = budget.cash;
  // A consumed level is removed at index i, which leaves the indexes below it untouched.
  for (let i = levels.length - 1; i >= 0; i--) {
    const px = levels[i].price;
    if (!contra.reachable(px, limitPx)) break;
    for (let rec = levels[i].head; rec;) {
      const next: OrderRecord | null = rec.next;
      const room =
        cashLeft === Number.POSITIVE_INFINITY
          ? budget.maxQty - taken
          : Math.min(budget.maxQty - taken, Math.floor(cashLeft / (px * unit)));
      if (room <= 0) return { taken, selfStopped: false };
      const resting = rec.order;
      if (preventsSelfMatch(order, resting)) {
        if (!handlers.meetSelf(rec)) return { taken, selfStopped: true };
      } else if (!resting.allOrNone || resting.leavesQty <= room) {
        const qty = Math.min(room, resting.leavesQty);
        taken += qty;
        cashLeft -= qty * px * unit;
        handlers.take(rec, qty, px);
      }
      rec = next;
    }
  }
  return { taken, selfStopped: false };
}

/** How much the order would trade right now, without trading: the dry run behind FOK, AON, minQty and cash orders. */
export function reachableQty(book: OrderBook, order: Order, limitPx: number, budget: WalkBudget): number {
  const skipsSelf = order.selfMatchPreventionInstruction === 'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING';
  return walkContra(book, order, limitPx, budget, { take: () => undefined, meetSelf: () => skipsSelf }).taken;
}

/** The worst price the order accepts: its limit, or for a market order the edge of the price band. */
export function limitPriceOf(book: OrderBook, order: Order): number {
  if (order.price !== 0) return order.price;
  const band = book.instrument.priceLimit;
  if (order.side === 'SIDE_BUY') return band.highSet ? band.high : Number.POSITIVE_INFINITY;
  return band.lowSet ? band.low : Number.NEGATIVE_INFINITY;
}

/** Whether anything on the other side is within the order's price (what post-only refuses). */
export function crossesBook(book: OrderBook, order: Order, limitPx: number): boolean {
  const contra = book.contra(order.side);
  const best = contra.best();
  return best !== undefined && contra.reachable(best.price, limitPx);
}
