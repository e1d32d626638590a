import type { OrderIntent, OrderSide } from './wire/retail-enums.wire.js';

import type { Side } from '../engine/index.js';

/**
 * How a retail intent trades on the engine's one book per market, which is the YES book of a binary
 * contract paying `payout` (1 dollar) on yes. With p the retail price as a fraction of the payout:
 *
 *   ORDER_INTENT_BUY_LONG   at p  = buy  YES at p
 *   ORDER_INTENT_SELL_LONG  at p  = sell YES at p
 *   ORDER_INTENT_BUY_SHORT  at p  = buy  NO  at p  ≡ sell YES at (1 − p)
 *   ORDER_INTENT_SELL_SHORT at p  = sell NO  at p  ≡ buy  YES at (1 − p)
 *
 * So a NO holding is a negative YES position, and a short intent's price is mirrored at the payout.
 * Retail prices are decimal Amounts; engine prices are integers (decimal x 10^priceScale).
 */
const ENGINE_SIDE: Record<OrderIntent, Side> = {
  ORDER_INTENT_BUY_LONG: 'SIDE_BUY',
  ORDER_INTENT_SELL_LONG: 'SIDE_SELL',
  ORDER_INTENT_BUY_SHORT: 'SIDE_SELL',
  ORDER_INTENT_SELL_SHORT: 'SIDE_BUY',
};

export function engineSideOf(intent: OrderIntent): Side {
  return ENGINE_SIDE[intent];
}

export function isShort(intent: OrderIntent): boolean {
  return intent === 'ORDER_INTENT_BUY_SHORT' || intent === 'ORDER_INTENT_SELL_SHORT';
}

/** The retail side names the verb of the intent: buying NO is a buy, even though the engine sells YES. */
export function retailSideOf(intent: OrderIntent): OrderSide {
  return intent === 'ORDER_INTENT_BUY_LONG' || intent === 'ORDER_INTENT_BUY_SHORT'
    ? 'ORDER_SIDE_BUY'
    : 'ORDER_SIDE_SELL';
}

/** A retail price (engine units) as the engine price; 0 stays 0, the engine's "no price". */
export function enginePriceOf(intent: OrderIntent, retailUnits: number, payout: number): number {
  return retailUnits === 0 || !isShort(intent) ? retailUnits : payout - retailUnits;
}

/** The inverse mapping, which is the same mirror. */
export const retailPriceOf = enginePriceOf;

/** An order the retail surface did not place (an exchange order) reads as a long intent of its side. */
export function intentOfEngineSide(side: Side): OrderIntent {
  return side === 'SIDE_BUY' ? 'ORDER_INTENT_BUY_LONG' : 'ORDER_INTENT_SELL_LONG';
}
