import type { OrderRequest, ReplaceRequest } from '@lib/exchange';
import type { ClosePosition, CreateOrder, ModifyOrder } from '@lib/retail';

import { MICROS, type OrderExposure } from './open-orders.store.js';

/**
 * What the risk checks need of one order-entering request, whichever surface it came from: its market,
 * quantity, worst-case notional in dollars and whether it can only reduce exposure. Unknown parts are
 * absent (a replace that keeps its quantity has none to check).
 */
export interface OrderTerms {
  /** Where in the request the order is (`body`, `body.requests.3`): named in a refusal. */
  path: string;
  market?: string;
  side?: 'buy' | 'sell';
  /** The side it trades the net position at, when not `side` (a retail SELL_SHORT buys YES: it reduces a NO holding, a negative net). */
  positionSide?: 'buy' | 'sell';
  qty?: number;
  /**
   * A cash order without a quantity: the most contracts its amount could buy, at the lowest price a
   * contract can trade at. `maxOrderQty` judges it at this (a cash amount must not buy past the limit).
   */
  mostQty?: number;
  /** Dollars at the order's worst case: a buy costs qty × price, a sell qty × (1 − price); a cash order its amount (with a quantity too, the larger). */
  notional?: number;
  /** Known to reduce exposure only (a close-position), or to depend on the position (an exchange order, a retail sell). */
  reduces: 'yes' | 'no' | 'by-position';
  /** Opens an order that may rest (an insert), so it counts against the open orders. */
  opens: boolean;
  /** A change of an existing order (exchange replace): its id, named in a refusal. */
  orderId?: string;
  /** A change of an order whose market the gateway does not know: a state or a limit narrowed to a market that could apply refuses it (fail closed, RiskGate). */
  marketUnknown?: boolean;
  /** A new price for an order whose quantity the gateway does not know: its notional cannot be judged (fail closed where a notional limit applies, RiskGate). */
  qtyUnknown?: boolean;
  /**
   * A close-position: it sells the whole position as the upstream finds it, so a reduce-only state judges
   * it by the position it reads then (RiskGate.reduces), not by `qty`.
   */
  closes?: boolean;
  /** A close-position whose position (its size) is not known here: a quantity or notional limit that binds refuses it (fail closed, RiskGate). */
  sizeUnknown?: boolean;
}

/**
 * The quantity a change is judged at: its new one, else, when only the price changes, the order's as
 * the gateway knows it (the largest seen). Unknown then, the change says so.
 */
function changedQty(
  qty: number | undefined,
  price: number | undefined,
  known: number | undefined,
): { judged?: number; qtyUnknown?: true } {
  if (qty !== undefined || price === undefined) return qty === undefined ? {} : { judged: qty };
  return known === undefined ? { qtyUnknown: true } : { judged: known };
}

/** A price as a worst case reads it: a binary contract pays between $0 and $1, so a price outside is taken at the nearer end (a sell above $1 risks nothing, never less). */
export const payoutPrice = (price: number): number => Math.min(1, Math.max(0, price));

/** Worst case of a binary contract paying $1: a buy loses its price, a sell 1 − price; an unknown side the larger. */
function worstCase(side: 'buy' | 'sell' | undefined, qty: number, raw: number | undefined): number {
  if (raw === undefined) return qty;
  const price = payoutPrice(raw);
  if (side === 'buy') return qty * price;
  if (side === 'sell') return qty * (1 - price);
  return qty * Math.max(price, 1 - price);
}

const dollars = (units: string | undefined, scale: number): number | undefined =>
  units === undefined ? undefined : Number(units) / 10 ** scale;

/**
 * An order's worst-case notional from its quantity and its cash amount. With both sent the exchange (and
 * the sandbox) trades the quantity, the cash amount only when there is none: the larger of the two is
 * taken, so a cash amount never hides a quantity.
 */
function notionalOf(
  side: 'buy' | 'sell' | undefined,
  qty: number | undefined,
  price: number | undefined,
  cash: number | undefined,
  cashSell?: { mostQty: number; lowest: number },
): number | undefined {
  const byQty = qty === undefined ? undefined : worstCase(side, qty, price);
  if (cash === undefined) return byQty;
  return byQty === undefined ? cashWorst(side, cash, cashSell) : Math.max(cash, byQty);
}

/**
 * A cash order's worst case: a buy's is its amount; a sell's amount is what it receives, and at the
 * lowest price it sells the most contracts, each giving up 1 − that price. A probe: a $5 cash sell sold
 * 100 contracts at 5¢ (a worst case of $95) past a $10 `maxOrderNotional` that refused the same sale as
 * a limit order.
 */
function cashWorst(
  side: 'buy' | 'sell' | undefined,
  cash: number,
  sell: { mostQty: number; lowest: number } | undefined,
): number {
  if (side === 'buy' || sell === undefined) return cash;
  return Math.max(cash, sell.mostQty * (1 - sell.lowest));
}

/** The smallest retail price step (a cent of the dollar payout), in dollars: a retail cash amount buys at most its amount over this. */
export const RETAIL_LOWEST_PRICE = 0.01;

/**
 * The order types that trade at the market (a stop once triggered): the exchange takes no price from them
 * (spec 2.2: price is required for limit orders), so one sent with a price is judged as having none, at
 * the worst case. A probe: a market-to-limit buy of 90 sent with `price: "1"` was judged at 90 × $0.01
 * and passed a $50 `maxOrderNotional`, then filled at 90¢ ($81).
 */
export const PRICELESS_TYPES: ReadonlySet<OrderRequest['type']> = new Set([
  'ORDER_TYPE_MARKET_TO_LIMIT',
  'ORDER_TYPE_STOP',
]);

/** An exchange insert: prices and cash are int64 in 10^-scale dollars (upstream-facts). */
export function exchangeOrderTerms(order: OrderRequest, scale: number, path = 'body'): OrderTerms {
  const side = order.side === 'SIDE_BUY' ? 'buy' : 'sell';
  const qty = order.orderQty === undefined ? undefined : Number(order.orderQty);
  const price = PRICELESS_TYPES.has(order.type) ? undefined : order.price;
  return {
    path,
    market: order.symbol,
    side,
    qty,
    // At the lowest price, one unit of 10^-scale dollars, a cash amount of n units buys n contracts.
    ...(qty === undefined && order.cashOrderQty !== undefined ? { mostQty: Number(order.cashOrderQty) } : {}),
    notional: notionalOf(side, qty, dollars(price, scale), dollars(order.cashOrderQty, scale), {
      mostQty: Number(order.cashOrderQty),
      lowest: 1 / 10 ** scale,
    }),
    reduces: 'by-position',
    opens: true,
  };
}

/** What an exchange insert adds to the exposure counts: its side, contracts (a cash order: its amount at the lowest tick, the most it could buy) and worst-case notional in micro-dollars. */
export function exchangeOrderExposure(order: OrderRequest, scale: number): OrderExposure {
  const terms = exchangeOrderTerms(order, scale);
  const qty = terms.qty ?? terms.mostQty ?? 0;
  return { side: terms.side ?? 'buy', qty, micros: Math.round((terms.notional ?? 0) * MICROS) };
}

/**
 * An exchange replace, judged against its new values on the order's own market and side as the gateway
 * knows them (`origin`: OrderOrigins), never the body's `symbol` (optional, and ignored by the exchange).
 * An order the gateway does not know has no market here (`marketUnknown`), and its notional takes the worse side.
 */
export function exchangeReplaceTerms(
  replace: ReplaceRequest,
  scale: number,
  path: string,
  origin?: { market: string; side: 'buy' | 'sell'; qty?: number },
): OrderTerms {
  const qty = replace.orderQty === undefined ? undefined : Number(replace.orderQty);
  const price = dollars(replace.price, scale);
  const { judged, qtyUnknown } = changedQty(qty, price, origin?.qty);
  return {
    path,
    market: origin?.market,
    side: origin?.side,
    qty,
    notional: notionalOf(origin?.side, judged, price, undefined),
    ...(qtyUnknown ? { qtyUnknown } : {}),
    reduces: qty === undefined ? 'yes' : 'no',
    opens: false,
    orderId: replace.orderId,
    ...(origin ? {} : { marketUnknown: true }),
  };
}

/** Retail buys (long or short) pay the price of what they buy; retail sells give up at most 1 − price (upstream-facts "Retail shapes"). */
export function retailOrderTerms(order: CreateOrder, path = 'body'): OrderTerms {
  const side = order.intent === 'ORDER_INTENT_BUY_LONG' || order.intent === 'ORDER_INTENT_BUY_SHORT' ? 'buy' : 'sell';
  // A market order trades at the market whatever price it carries (spec 3: price is for limit orders), as an exchange market-to-limit does.
  const price = order.price === undefined || order.type === 'ORDER_TYPE_MARKET' ? undefined : Number(order.price.value);
  const cash = order.cashOrderQty === undefined ? undefined : Number(order.cashOrderQty.value);
  const notional = notionalOf(
    side,
    order.quantity,
    price,
    cash,
    cash === undefined ? undefined : { mostQty: mostContracts(cash), lowest: RETAIL_LOWEST_PRICE },
  );
  return {
    path,
    market: order.marketSlug,
    side,
    qty: order.quantity,
    ...(order.quantity === undefined && cash !== undefined ? { mostQty: mostContracts(cash) } : {}),
    notional,
    // A sell reduces only the holding it sells (from flat it opens one): SELL_LONG sells YES, SELL_SHORT sells NO, that is buys YES.
    reduces: side === 'sell' ? 'by-position' : 'no',
    ...(side === 'sell' ? { positionSide: order.intent === 'ORDER_INTENT_SELL_SHORT' ? 'buy' : 'sell' } : {}),
    opens: true,
  };
}

/** The most contracts a retail cash amount buys (at RETAIL_LOWEST_PRICE; rounded to a millionth first: 6.00 / 0.01 is 600, not 600.0000000001). */
function mostContracts(cash: number): number {
  return Math.ceil(Math.round((cash / RETAIL_LOWEST_PRICE) * 1e6) / 1e6);
}

/**
 * A retail modify. `known`: the order as the gateway knows it (OrderOrigins): its quantity, for a new
 * price alone, and the side its intent trades at (a buy of either outcome pays the price; unknown, the worse side).
 */
export function retailModifyTerms(
  modify: ModifyOrder,
  path = 'body',
  known?: { qty?: number; side?: 'buy' | 'sell' },
): OrderTerms {
  const price = modify.price === undefined ? undefined : Number(modify.price.value);
  const { judged, qtyUnknown } = changedQty(modify.quantity, price, known?.qty);
  return {
    path,
    market: modify.marketSlug,
    qty: modify.quantity,
    notional: judged === undefined ? undefined : worstCase(known?.side, judged, price),
    ...(qtyUnknown ? { qtyUnknown } : {}),
    reduces: modify.quantity === undefined ? 'yes' : 'no',
    opens: false,
  };
}

/**
 * A retail close-position, judged as a market sell of the whole position: `net` is the account's net YES
 * position there (undefined: not known here). A long sells YES; a NO holding sells NO, that is buys YES.
 * With no price its worst case is the market order's, qty × $1. It reduces only while no open order on its
 * side would take the account past flat once both trade (a reduce-only state reads that, RiskGate).
 */
export function retailCloseTerms(close: ClosePosition, path = 'body', net?: number): OrderTerms {
  const qty = net === undefined ? undefined : Math.abs(net);
  return {
    path,
    market: close.marketSlug,
    side: 'sell',
    ...(net !== undefined && net < 0 ? { positionSide: 'buy' } : {}),
    ...(qty === undefined ? { sizeUnknown: true } : { qty, notional: worstCase('sell', qty, undefined) }),
    reduces: 'by-position',
    closes: true,
    opens: false,
  };
}
