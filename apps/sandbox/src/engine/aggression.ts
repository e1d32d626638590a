import { limitPriceOf, reachableQty, walkContra } from './contra-walk.js';
import type { EngineContext } from './engine-context.js';
import type { OrderBook } from './order-book.js';
import { isImmediate } from './order-predicates.js';
import type { OrderRecord } from './order-record.js';
import type { Order } from './order.types.js';

/**
 * Lets an accepted order trade against the book, then settles what is left by its terms: an
 * immediate order cancels the rest, a market-to-limit rests at its last fill price, others rest.
 * `entry` is false when a replace sends the order back in, which does not re-apply minQty.
 */
export function aggress(ctx: EngineContext, book: OrderBook, rec: OrderRecord, entry: boolean): void {
  const order = rec.order;
  const limitPx = limitPriceOf(book, order);
  const need = immediateNeed(order, entry);
  if (need > 0 && reachableQty(book, order, limitPx, { maxQty: need, cash: Number.POSITIVE_INFINITY }) < need) {
    missMinimum(ctx, book, rec);
    return;
  }
  const result = walkContra(
    book,
    order,
    limitPx,
    { maxQty: order.leavesQty, cash: Number.POSITIVE_INFINITY },
    {
      take: (resting, qty, px) => ctx.fill(book, rec, resting, qty, px),
      meetSelf: (resting) => preventSelfMatch(ctx, book, rec, resting),
    },
  );
  if (order.leavesQty === 0) return;
  if (result.selfStopped) cancelForSelfMatch(ctx, book, rec);
  else settleRemainder(ctx, book, rec);
}

/** What must trade at once: everything for FOK and all-or-none, minQty on entry. */
function immediateNeed(order: Order, entry: boolean): number {
  if (order.timeInForce === 'TIME_IN_FORCE_FILL_OR_KILL' || order.allOrNone) return order.leavesQty;
  return entry ? order.minQty : 0;
}

/** An all-or-none order that may wait rests for a counterparty large enough; anything else is canceled whole. */
function missMinimum(ctx: EngineContext, book: OrderBook, rec: OrderRecord): void {
  const order = rec.order;
  if (order.allOrNone && !isImmediate(order) && order.price !== 0 && order.minQty === 0) {
    ctx.rest(book, rec);
    return;
  }
  ctx.close(book, rec, 'ORDER_STATE_CANCELED', 'EXECUTION_TYPE_CANCELED', { text: 'required quantity not available' });
}

function settleRemainder(ctx: EngineContext, book: OrderBook, rec: OrderRecord): void {
  const order = rec.order;
  if (isImmediate(order)) {
    ctx.close(book, rec, 'ORDER_STATE_CANCELED', 'EXECUTION_TYPE_CANCELED', {
      text: 'immediate order remainder canceled',
    });
    return;
  }
  if (order.price === 0) {
    if (order.cumQty === 0) {
      ctx.close(book, rec, 'ORDER_STATE_CANCELED', 'EXECUTION_TYPE_CANCELED', { text: 'no liquidity' });
      return;
    }
    order.price = rec.lastFillPx;
  }
  ctx.rest(book, rec);
}

/** The aggressor's instruction decides (default REJECT_AGGRESSOR); true lets the walk go on. */
function preventSelfMatch(ctx: EngineContext, book: OrderBook, aggressor: OrderRecord, resting: OrderRecord): boolean {
  const instruction = aggressor.order.selfMatchPreventionInstruction;
  if (instruction === 'SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR') return false;
  cancelForSelfMatch(ctx, book, resting);
  return instruction === 'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING';
}

export function cancelForSelfMatch(ctx: EngineContext, book: OrderBook, rec: OrderRecord): void {
  ctx.close(book, rec, 'ORDER_STATE_CANCELED', 'EXECUTION_TYPE_CANCELED', {
    unsolicitedCancelReason: 'UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION',
    text: 'self-match prevention',
  });
}
