import type { Instrument, ManualOrderIndicator, MatchingEngine, OrderRequest, TimeInForce } from '../engine/index.js';
import { enginePriceOf, engineSideOf, retailPriceOf, retailSideOf } from './retail-intents.js';
import { type PriceFrame, priceFrameOf, unitsOf } from './retail-prices.js';
import type { RetailOrderTerms } from './retail-venue.js';
import type { OrderIntent, RetailTimeInForce } from './wire/retail-enums.wire.js';
import type { CreateOrder } from './wire/retail-request.wire.js';

type SlippageTolerance = NonNullable<CreateOrder['slippageTolerance']>;

export const ENGINE_TIF: Record<RetailTimeInForce, TimeInForce> = {
  TIME_IN_FORCE_GOOD_TILL_CANCEL: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  TIME_IN_FORCE_GOOD_TILL_DATE: 'TIME_IN_FORCE_GOOD_TILL_TIME',
  TIME_IN_FORCE_IMMEDIATE_OR_CANCEL: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
  TIME_IN_FORCE_FILL_OR_KILL: 'TIME_IN_FORCE_FILL_OR_KILL',
};

const MANUAL: Record<NonNullable<CreateOrder['manualOrderIndicator']>, ManualOrderIndicator> = {
  MANUAL_ORDER_INDICATOR_MANUAL: 'MANUAL_ORDER_INDICATOR_MANUAL',
  MANUAL_ORDER_INDICATOR_AUTOMATIC: 'MANUAL_ORDER_INDICATOR_AUTOMATED',
};

/**
 * A retail CreateOrder as an engine order (see retail-intents.ts for the intent mapping). A limit order
 * rests at its mirrored price; a market order is immediate unless it says otherwise; slippageTolerance
 * turns it into a limit at currentPrice ± tolerance; a cash order the engine cannot size itself (a
 * short intent, or one with a limit) is sized here against the book.
 */
export function engineOrderOf(
  engine: MatchingEngine,
  keyId: string,
  clordId: string,
  body: CreateOrder,
): { request: OrderRequest; terms: RetailOrderTerms } {
  const instrument = engine.instrument(body.marketSlug);
  const frame = priceFrameOf(instrument);
  const type = body.type ?? 'ORDER_TYPE_LIMIT';
  const tif =
    body.tif ?? (type === 'ORDER_TYPE_MARKET' ? 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' : 'TIME_IN_FORCE_GOOD_TILL_CANCEL');
  const terms: RetailOrderTerms = {
    intent: body.intent,
    type,
    tif,
    ...(body.cashOrderQty ? { cashOrderQty: body.cashOrderQty.value } : {}),
  };
  const request: OrderRequest = {
    symbol: body.marketSlug,
    side: engineSideOf(body.intent),
    account: keyId,
    clordId,
    timeInForce: ENGINE_TIF[tif],
    ...(body.goodTillTime ? { goodTillTime: Date.parse(body.goodTillTime) } : {}),
    ...(body.participateDontInitiate === undefined ? {} : { participateDontInitiate: body.participateDontInitiate }),
    ...(body.manualOrderIndicator ? { manualOrderIndicator: MANUAL[body.manualOrderIndicator] } : {}),
  };
  if (type === 'ORDER_TYPE_LIMIT') {
    const price = enginePriceOf(body.intent, unitsOf(body.price?.value ?? '0', frame.scale), frame.payout);
    return { request: { ...request, type: 'ORDER_TYPE_LIMIT', price, orderQty: body.quantity }, terms };
  }
  return { request: { ...request, ...marketTerms(engine, instrument, frame, body) }, terms };
}

function marketTerms(
  engine: MatchingEngine,
  instrument: Instrument | undefined,
  frame: PriceFrame,
  body: CreateOrder,
): Partial<OrderRequest> {
  const limit =
    instrument && body.slippageTolerance
      ? slippageLimit(instrument, frame, body.intent, body.slippageTolerance)
      : undefined;
  const cash = body.cashOrderQty ? unitsOf(body.cashOrderQty.value, frame.scale) : undefined;
  const nativeCash =
    cash !== undefined &&
    limit === undefined &&
    (body.intent === 'ORDER_INTENT_BUY_LONG' || body.intent === 'ORDER_INTENT_SELL_LONG');
  const orderQty =
    body.quantity ??
    (cash === undefined || nativeCash || !instrument
      ? undefined
      : cashQuantity(engine, instrument, frame, body, cash, limit));
  const size = nativeCash ? { cashOrderQty: cash } : { orderQty };
  return limit === undefined
    ? { type: 'ORDER_TYPE_MARKET_TO_LIMIT', ...size }
    : { type: 'ORDER_TYPE_LIMIT', price: limit, ...size };
}

/** The engine limit price of `currentPrice` moved against the order by ticks and bips, kept inside the price band. */
function slippageLimit(
  instrument: Instrument,
  frame: PriceFrame,
  intent: OrderIntent,
  tolerance: SlippageTolerance,
): number {
  const current = unitsOf(tolerance.currentPrice.value, frame.scale);
  const tick = instrument.tickSize;
  const room = (tolerance.ticks ?? 0) * tick + (current * (tolerance.bips ?? 0)) / 10_000;
  const buying = retailSideOf(intent) === 'ORDER_SIDE_BUY';
  // Rounded to the tick towards the current price, so the limit never exceeds the tolerance.
  const worst = buying ? Math.floor((current + room) / tick) * tick : Math.ceil((current - room) / tick) * tick;
  const bounded = Math.min(Math.max(worst, tick), frame.payout - tick);
  return enginePriceOf(intent, bounded, frame.payout);
}

/** How many contracts `cash` buys (or, selling, raises) walking the book at retail prices, within `limit`. */
function cashQuantity(
  engine: MatchingEngine,
  instrument: Instrument,
  frame: PriceFrame,
  body: CreateOrder,
  cash: number,
  limit: number | undefined,
): number {
  const side = engineSideOf(body.intent);
  const book = engine.book(instrument.symbol, 1_000);
  const levels = side === 'SIDE_BUY' ? book.offers : book.bids;
  let quantity = 0;
  let left = cash;
  for (const level of levels) {
    if (limit !== undefined && (side === 'SIDE_BUY' ? level.px > limit : level.px < limit)) break;
    const unit = retailPriceOf(body.intent, level.px, frame.payout) * instrument.multiplier;
    const take = Math.min(level.qty, Math.floor(left / unit));
    quantity += take;
    left -= take * unit;
    if (take < level.qty) break;
  }
  return quantity;
}
