import type { OrdRejectReason } from './engine.enums.js';
import type { Instrument } from './instrument.types.js';
import { allowsEntry, allowsMatching } from './instrument-state.rules.js';
import { hasLimitPrice, isCashOrder, isStop, stopTriggeredBy } from './order-predicates.js';
import type { Order } from './order.types.js';

type Reason = OrdRejectReason | undefined;

/** Why a new order cannot be accepted, checked before it touches the book; undefined when it can. */
export function entryRejectReason(
  order: Order,
  instrument: Instrument | undefined,
  lastTradePx: number | undefined,
  now: number,
): Reason {
  if (!instrument) return 'ORD_REJECT_REASON_UNKNOWN_SYMBOL';
  if (!order.account) return 'ORD_REJECT_REASON_INVALID_ACCOUNT';
  if (instrument.nonTradable || !allowsEntry(instrument.state)) return 'ORD_REJECT_REASON_EXCHANGE_CLOSED';
  const reason = termsRejectReason(order, instrument, lastTradePx, now);
  return reason ?? (allowsMatching(instrument.state) ? undefined : auctionPhaseReason(order));
}

/** The order's own terms against the instrument's limits; a replace checks these again. */
export function termsRejectReason(
  order: Order,
  instrument: Instrument,
  lastTradePx: number | undefined,
  now: number,
): Reason {
  return (
    quantityReason(order, instrument) ??
    (hasLimitPrice(order) || order.price !== 0
      ? priceReason(order.price, order, instrument, 'ORD_REJECT_REASON_MISSING_PRICE')
      : undefined) ??
    (isStop(order) ? stopReason(order, instrument, lastTradePx) : undefined) ??
    expiryReason(order, now)
  );
}

function quantityReason(order: Order, instrument: Instrument): Reason {
  if (isCashOrder(order)) {
    if (order.type !== 'ORDER_TYPE_MARKET_TO_LIMIT') return 'ORD_REJECT_REASON_INVALID_ORDER_TYPE';
    return Number.isSafeInteger(order.cashOrderQty) ? undefined : 'ORD_REJECT_REASON_INVALID_QUANTITY';
  }
  const limit = instrument.orderSizeLimit;
  if (!Number.isSafeInteger(order.orderQty) || order.orderQty <= 0) return 'ORD_REJECT_REASON_INVALID_QUANTITY';
  if (outside(order.orderQty, limit.low, limit.lowSet, limit.high, limit.highSet))
    return 'ORD_REJECT_REASON_QUANTITY_OUT_OF_RANGE';
  const notional = order.orderQty * order.price * instrument.multiplier;
  if (
    hasLimitPrice(order) &&
    outside(
      notional,
      limit.totalNotionalLow,
      limit.totalNotionalLowSet,
      limit.totalNotionalHigh,
      limit.totalNotionalHighSet,
    )
  ) {
    return 'ORD_REJECT_REASON_NOTIONAL_OUT_OF_RANGE';
  }
  const { minQty } = order;
  return Number.isSafeInteger(minQty) && minQty >= 0 && minQty <= order.orderQty
    ? undefined
    : 'ORD_REJECT_REASON_INVALID_MIN_QTY';
}

/** A price of 0 is an absent price (proto3), hence `missing`. */
function priceReason(px: number, order: Order, instrument: Instrument, missing: OrdRejectReason): Reason {
  if (px === 0) return missing;
  if (!Number.isSafeInteger(px) || px % instrument.tickSize !== 0) return 'ORD_REJECT_REASON_INVALID_PRICE_INCREMENT';
  const band = instrument.priceLimit;
  if (!order.ignorePriceValidityChecks && outside(px, band.low, band.lowSet, band.high, band.highSet))
    return 'ORD_REJECT_REASON_PRICE_OUT_OF_RANGE';
  return undefined;
}

/** A stop that the last trade already triggers is refused rather than fired at once (as CME does). */
function stopReason(order: Order, instrument: Instrument, lastTradePx: number | undefined): Reason {
  const reason = priceReason(order.stopPrice, order, instrument, 'ORD_REJECT_REASON_MISSING_STOP_PRICE');
  return reason ?? (stopTriggeredBy(order, lastTradePx) ? 'ORD_REJECT_REASON_INVALID_STOP_PRICE' : undefined);
}

function expiryReason(order: Order, now: number): Reason {
  if (order.timeInForce !== 'TIME_IN_FORCE_GOOD_TILL_TIME') return undefined;
  return order.goodTillTime !== undefined && order.goodTillTime > now
    ? undefined
    : 'ORD_REJECT_REASON_INVALID_EXPIRE_TIME';
}

/** Before the auction nothing trades, so terms that only mean something on a trade are refused. */
function auctionPhaseReason(order: Order): Reason {
  if (order.timeInForce === 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' || order.timeInForce === 'TIME_IN_FORCE_FILL_OR_KILL') {
    return 'ORD_REJECT_REASON_INVALID_TIME_IN_FORCE';
  }
  if (order.type === 'ORDER_TYPE_MARKET_TO_LIMIT') return 'ORD_REJECT_REASON_INVALID_ORDER_TYPE';
  return order.minQty > 0 ? 'ORD_REJECT_REASON_INVALID_MIN_QTY' : undefined;
}

function outside(value: number, low: number, lowSet: boolean, high: number, highSet: boolean): boolean {
  return (lowSet && value < low) || (highSet && value > high);
}
