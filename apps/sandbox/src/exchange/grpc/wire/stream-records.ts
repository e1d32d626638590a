import type { Execution, Instrument, Order, OrdRejectReason, Position } from '../../../engine/index.js';
import { positionRecord } from '../../wire/ledger-wire.js';
import { executionRecord, orderRecord } from '../../wire/order-wire.js';

/** A message as proto-loader serializes it: camelCase fields, int64 as strings, enums by name. */
export type ProtoRecord = Record<string, unknown>;

/** google.protobuf.Timestamp of epoch milliseconds. */
export function timestamp(ms: number): { seconds: string; nanos: number } {
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/** Epoch milliseconds of a decoded Timestamp. */
export function epochMsOf(time: { seconds: string | number; nanos: number }): number {
  return Number(time.seconds) * 1000 + Math.floor(time.nanos / 1_000_000);
}

/**
 * The engine's reasons onto the eight the streaming guide numbers (upstream-facts): the engine's
 * finer reasons have no published number, so they travel as the nearest one, the detail in `text`.
 */
const PUBLISHED_REJECT_REASON: Record<OrdRejectReason, string> = {
  ORD_REJECT_REASON_UNKNOWN_SYMBOL: 'ORD_REJECT_REASON_UNKNOWN_SYMBOL',
  ORD_REJECT_REASON_UNKNOWN_MARKET: 'ORD_REJECT_REASON_UNKNOWN_SYMBOL',
  ORD_REJECT_REASON_EXCHANGE_CLOSED: 'ORD_REJECT_REASON_EXCHANGE_CLOSED',
  ORD_REJECT_REASON_INVALID_ACCOUNT: 'ORD_REJECT_REASON_EXCHANGE_OPTION',
  ORD_REJECT_REASON_INVALID_QUANTITY: 'ORD_REJECT_REASON_INCORRECT_QUANTITY',
  ORD_REJECT_REASON_QUANTITY_OUT_OF_RANGE: 'ORD_REJECT_REASON_INCORRECT_QUANTITY',
  ORD_REJECT_REASON_NOTIONAL_OUT_OF_RANGE: 'ORD_REJECT_REASON_INCORRECT_QUANTITY',
  ORD_REJECT_REASON_INVALID_MIN_QTY: 'ORD_REJECT_REASON_INCORRECT_QUANTITY',
  ORD_REJECT_REASON_MISSING_PRICE: 'ORD_REJECT_REASON_INCORRECT_ORDER_TYPE',
  ORD_REJECT_REASON_INVALID_PRICE_INCREMENT: 'ORD_REJECT_REASON_INVALID_PRICE_INCREMENT',
  ORD_REJECT_REASON_PRICE_OUT_OF_RANGE: 'ORD_REJECT_REASON_PRICE_OUT_OF_BOUNDS',
  ORD_REJECT_REASON_MISSING_STOP_PRICE: 'ORD_REJECT_REASON_INCORRECT_ORDER_TYPE',
  ORD_REJECT_REASON_INVALID_STOP_PRICE: 'ORD_REJECT_REASON_INCORRECT_ORDER_TYPE',
  ORD_REJECT_REASON_INVALID_EXPIRE_TIME: 'ORD_REJECT_REASON_INCORRECT_ORDER_TYPE',
  ORD_REJECT_REASON_INVALID_TIME_IN_FORCE: 'ORD_REJECT_REASON_INCORRECT_ORDER_TYPE',
  ORD_REJECT_REASON_INVALID_ORDER_TYPE: 'ORD_REJECT_REASON_INCORRECT_ORDER_TYPE',
  ORD_REJECT_REASON_WOULD_MATCH_IMMEDIATELY: 'ORD_REJECT_REASON_EXCHANGE_OPTION',
  ORD_REJECT_REASON_SELF_MATCH: 'ORD_REJECT_REASON_EXCHANGE_OPTION',
  ORD_REJECT_REASON_NO_LIQUIDITY: 'ORD_REJECT_REASON_NO_LIQUIDITY',
};

/** Spec 2.1 on a stream: the REST record with Timestamps for its date-times. */
export function orderMessage(order: Order): ProtoRecord {
  return {
    ...orderRecord(order),
    insertTime: timestamp(order.insertTime),
    createTime: timestamp(order.createTime),
    lastTransactTime: timestamp(order.lastTransactTime),
    goodTillTime: order.goodTillTime === undefined ? null : timestamp(order.goodTillTime),
  };
}

/** Spec 2.4 on a stream. */
export function executionMessage(execution: Execution): ProtoRecord {
  const reason = execution.orderRejectReason;
  return {
    ...executionRecord(execution),
    order: orderMessage(execution.order),
    orderRejectReason: reason ? PUBLISHED_REJECT_REASON[reason] : undefined,
    transactTime: timestamp(execution.transactTime),
  };
}

/** A position on a stream: the REST record with a Timestamp. */
export function positionMessage(position: Position): ProtoRecord {
  return { ...positionRecord(position), updateTime: timestamp(position.updateTime) };
}

export function instrumentMessage(
  instrument: Pick<Instrument, 'symbol' | 'state' | 'nonTradable' | 'updateTime'>,
): ProtoRecord {
  return {
    symbol: instrument.symbol,
    state: instrument.state,
    updateTime: timestamp(instrument.updateTime),
    nonTradable: instrument.nonTradable,
  };
}
