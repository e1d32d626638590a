import type { CreateOrder, OrderIntent } from '@lib/retail';

/** A retail market order's `slippageTolerance` (upstream-facts "Retail shapes"): `{currentPrice, bips?, ticks?}`. */
export type SlippageTolerance = NonNullable<CreateOrder['slippageTolerance']>;

const EPSILON = 1e-9;
/** The finest price a stamped currentPrice names (six places). */
const FINEST = 1e-6;
const isShort = (intent: OrderIntent) => intent === 'ORDER_INTENT_BUY_SHORT' || intent === 'ORDER_INTENT_SELL_SHORT';
const isBuy = (intent: OrderIntent) => intent === 'ORDER_INTENT_BUY_LONG' || intent === 'ORDER_INTENT_BUY_SHORT';
/** A dollar figure without binary noise, as a decimal string (at most 6 places). */
const decimal = (dollars: number) => dollars.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');

/** The worst price a tolerance lets a market order reach, on the market's long (YES) book, in dollars. */
export interface SlippageWorst {
  /** Long-book price: a short intent's is mirrored (1 − p). */
  price: number;
  /** The tolerance names `ticks` but the market's tick is not known here: the worst is taken at the price's bound. */
  tickUnknown?: true;
}

/**
 * The exchange's arithmetic (the sandbox's `slippageLimit`): in the intent's own price frame, the order
 * executes no worse than currentPrice + room for a buy, currentPrice − room for a sell, where room =
 * ticks × tick + currentPrice × bips / 10,000, rounded to the tick towards currentPrice and kept inside
 * (tick, 1 − tick). Without a known tick the rounding is left out (the unrounded price is never better
 * than the rounded one); a tolerance in ticks then has no known room and is taken at the bound (0 or 1).
 */
export function slippageWorst(intent: OrderIntent, tolerance: SlippageTolerance, tick?: number): SlippageWorst {
  const current = Number(tolerance.currentPrice.value);
  const buying = isBuy(intent);
  const ticks = tolerance.ticks ?? 0;
  let worst: number;
  if (ticks > 0 && tick === undefined) worst = buying ? 1 : 0;
  else {
    const room = ticks * (tick ?? 0) + (current * (tolerance.bips ?? 0)) / 10_000;
    worst = buying ? current + room : current - room;
    if (tick !== undefined) {
      const steps = Math.round((worst / tick) * 1e6) / 1e6;
      worst = (buying ? Math.floor(steps) : Math.ceil(steps)) * tick;
      worst = Math.min(Math.max(worst, tick), 1 - tick);
    }
  }
  const price = Math.round((isShort(intent) ? 1 - worst : worst) * 1e9) / 1e9;
  return ticks > 0 && tick === undefined ? { price, tickUnknown: true } : { price };
}

/**
 * The tolerance that stops a market order of `intent` at the band's edge on its own side: currentPrice
 * the reference (mirrored for a short intent, whose prices are NO prices), the room the band, in whole
 * ticks when the tick is known, else in whole bips (both rounded down, so never past the edge).
 * Undefined when the reference leaves no price to name (a mirrored price at 0 or 1).
 */
export function toleranceAtEdge(
  intent: OrderIntent,
  reference: number,
  band: number,
  tick?: number,
): SlippageTolerance | undefined {
  const current = isShort(intent) ? 1 - reference : reference;
  if (!(current >= FINEST && current <= 1 - FINEST)) return undefined;
  const room =
    tick !== undefined && tick > 0
      ? { ticks: Math.floor(band / tick + EPSILON) }
      : { bips: Math.floor((band / current) * 10_000 + EPSILON) };
  return { currentPrice: { value: decimal(current), currency: 'USD' }, ...room };
}
