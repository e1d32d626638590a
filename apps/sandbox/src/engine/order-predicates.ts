import type { Order } from './order.types.js';

export function isStop(order: Order): boolean {
  return order.type === 'ORDER_TYPE_STOP' || order.type === 'ORDER_TYPE_STOP_LIMIT';
}

/** Orders that carry their own limit price from entry. */
export function hasLimitPrice(order: Order): boolean {
  return order.type === 'ORDER_TYPE_LIMIT' || order.type === 'ORDER_TYPE_STOP_LIMIT';
}

/** A market order for an amount of cash: the quantity is worked out against the book on entry. */
export function isCashOrder(order: Order): boolean {
  return order.cashOrderQty > 0 && order.orderQty === 0;
}

export function isImmediate(order: Order): boolean {
  return (
    order.timeInForce === 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' || order.timeInForce === 'TIME_IN_FORCE_FILL_OR_KILL'
  );
}

/**
 * Self-match prevention applies only between orders of one participant carrying the same non-empty
 * selfMatchPreventionId (upstream-facts.md, "Order safety"); two participants of one firm simply trade.
 */
export function preventsSelfMatch(a: Order, b: Order): boolean {
  return (
    a.selfMatchPreventionId !== '' &&
    a.selfMatchPreventionId === b.selfMatchPreventionId &&
    a.participant === b.participant
  );
}

/** A buy stop fires when the market trades at or above its stop price, a sell stop at or below. */
export function stopTriggeredBy(order: Order, lastTradePx: number | undefined): boolean {
  if (lastTradePx === undefined) return false;
  return order.side === 'SIDE_BUY' ? lastTradePx >= order.stopPrice : lastTradePx <= order.stopPrice;
}
