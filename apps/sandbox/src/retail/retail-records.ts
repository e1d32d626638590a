import type { Execution, Instrument, MatchingEngine, Order, TimeInForce } from '../engine/index.js';
import { intentOfEngineSide, retailPriceOf, retailSideOf } from './retail-intents.js';
import { type PriceFrame, amountOf, isoOf, priceFrameOf } from './retail-prices.js';
import type { RetailOrderTerms, RetailVenue } from './retail-venue.js';
import type { RetailTimeInForce } from './wire/retail-enums.wire.js';
import type { RetailExecution, RetailOrder } from './wire/retail-records.wire.js';

const RETAIL_TIF: Record<TimeInForce, RetailTimeInForce> = {
  TIME_IN_FORCE_GOOD_TILL_CANCEL: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  TIME_IN_FORCE_GOOD_TILL_TIME: 'TIME_IN_FORCE_GOOD_TILL_DATE',
  TIME_IN_FORCE_IMMEDIATE_OR_CANCEL: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
  TIME_IN_FORCE_FILL_OR_KILL: 'TIME_IN_FORCE_FILL_OR_KILL',
  // Retail has no DAY; only exchange orders carry it, and they rest until cancelled like GTC here.
  TIME_IN_FORCE_DAY: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
};

/** Engine records in retail shapes: intents, mirrored prices of short intents, Amounts, ISO times. */
export class RetailRecords {
  constructor(
    private readonly engine: MatchingEngine,
    private readonly venue: RetailVenue,
  ) {}

  frame(symbol: string): PriceFrame {
    return priceFrameOf(this.engine.instrument(symbol));
  }

  instrument(symbol: string): Instrument | undefined {
    return this.engine.instrument(symbol);
  }

  terms(order: Order): RetailOrderTerms {
    return (
      this.venue.termsOf(order.account, order.clordId) ?? {
        intent: intentOfEngineSide(order.side),
        type: order.type === 'ORDER_TYPE_MARKET_TO_LIMIT' ? 'ORDER_TYPE_MARKET' : 'ORDER_TYPE_LIMIT',
        tif: RETAIL_TIF[order.timeInForce],
      }
    );
  }

  /** Whether an order belongs to the retail surface's view of `keyId`. */
  owns(keyId: string, order: Order | undefined): order is Order {
    return order !== undefined && order.account === keyId;
  }

  order(order: Order, terms = this.terms(order)): RetailOrder {
    const { scale, payout } = this.frame(order.symbol);
    const price = (units: number) => amountOf(retailPriceOf(terms.intent, units, payout), scale);
    return {
      id: order.id,
      marketSlug: order.symbol,
      side: retailSideOf(terms.intent),
      type: terms.type,
      price: price(order.price),
      quantity: order.orderQty,
      cumQuantity: order.cumQty,
      leavesQuantity: order.leavesQty,
      tif: terms.tif,
      ...optional('goodTillTime', isoOf(order.goodTillTime)),
      intent: terms.intent,
      marketMetadata: this.metadata(order.symbol),
      state: order.state,
      ...(order.cumQty > 0 ? { avgPx: price(order.avgPx) } : {}),
      ...(terms.cashOrderQty ? { cashOrderQty: { value: terms.cashOrderQty, currency: 'USD' } } : {}),
      ...optional('insertTime', isoOf(order.insertTime)),
      ...optional('createTime', isoOf(order.createTime)),
      commissionNotionalTotalCollected: amountOf(order.commissionNotionalTotalCollected, scale),
      commissionsBasisPoints: String(order.commissionsBasisPoints),
      makerCommissionsBasisPoints: String(order.makerCommissionsBasisPoints),
    };
  }

  /** spec 2.11; the engine's UNKNOWN_SYMBOL is the retail surface's ORD_REJECT_REASON_UNKNOWN_MARKET (spec 7). */
  execution(execution: Execution): RetailExecution {
    const order = this.order(execution.order);
    const { scale, payout } = this.frame(execution.order.symbol);
    const reject =
      execution.orderRejectReason === 'ORD_REJECT_REASON_UNKNOWN_SYMBOL'
        ? 'ORD_REJECT_REASON_UNKNOWN_MARKET'
        : execution.orderRejectReason;
    return {
      id: execution.id,
      order,
      lastShares: String(execution.lastShares),
      ...(execution.lastShares > 0
        ? { lastPx: amountOf(retailPriceOf(order.intent, execution.lastPx, payout), scale) }
        : {}),
      type: execution.type,
      text: reject ?? execution.text,
      ...optional('orderRejectReason', reject),
      ...optional('unsolicitedCancelReason', execution.unsolicitedCancelReason),
      ...optional('transactTime', isoOf(execution.transactTime)),
      ...optional('tradeId', execution.tradeId || undefined),
      aggressor: execution.aggressor,
      commissionNotionalCollected: amountOf(execution.commissionNotionalCollected, scale),
    };
  }

  /** spec 2.9 marketMetadata from the instrument's reference data. */
  metadata(symbol: string): RetailOrder['marketMetadata'] {
    const instrument = this.engine.instrument(symbol);
    if (!instrument) return { slug: symbol };
    return {
      slug: symbol,
      title: instrument.eventAttributes.question,
      outcome: 'Yes',
      eventSlug: instrument.metadata.eventSlug ?? '',
    };
  }
}

export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
