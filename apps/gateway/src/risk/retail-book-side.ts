import type { CreateOrder, OrderIntent } from '@lib/retail';

import { MICROS, type OrderExposure } from './open-orders.store.js';
import { retailOrderTerms } from './order-terms.js';

/**
 * Where a retail order stands on its market's one book, the YES book of a binary contract paying $1:
 * BUY_LONG at p buys YES at p, SELL_LONG sells YES at p, BUY_SHORT (buys NO at p) sells YES at 1 − p,
 * SELL_SHORT (sells NO at p) buys YES at 1 − p. A NO holding is a negative YES position, as the
 * exchange's and the retail API's net positions count it.
 */
export function yesSideOf(intent: OrderIntent): 'buy' | 'sell' {
  return intent === 'ORDER_INTENT_BUY_LONG' || intent === 'ORDER_INTENT_SELL_SHORT' ? 'buy' : 'sell';
}

/** The YES price of a retail price (a short intent's is mirrored at the $1 payout); undefined stays undefined (a market order). */
export function yesPriceOf(intent: OrderIntent, price: number | undefined): number | undefined {
  if (price === undefined) return undefined;
  return intent === 'ORDER_INTENT_BUY_SHORT' || intent === 'ORDER_INTENT_SELL_SHORT' ? 1 - price : price;
}

/** The intent that closes a net YES position, as the upstream closes it (a long sells YES, a NO holding sells NO); undefined when flat or not known. */
export function closingIntentOf(net: number | undefined): OrderIntent | undefined {
  if (net === undefined || net === 0) return undefined;
  return net > 0 ? 'ORDER_INTENT_SELL_LONG' : 'ORDER_INTENT_SELL_SHORT';
}

/**
 * What a retail create adds to the exposure counts: its YES side (so that it adds to the same net
 * position as an exchange order on that market), contracts (a cash order: its amount at the lowest
 * price, the most it could buy) and worst-case notional in micro-dollars (retailOrderTerms).
 */
export function retailOrderExposure(order: CreateOrder): OrderExposure {
  const terms = retailOrderTerms(order);
  const notional = terms.notional ?? 0;
  const qty = terms.qty ?? terms.mostQty ?? 0;
  return { side: yesSideOf(order.intent), qty: Math.ceil(qty), micros: Math.round(notional * MICROS) };
}
