import type { Execution, Order, OrderRequest, ReplaceRequest } from '../../engine/index.js';
import type {
  OrderRequest as WireOrderRequest,
  ReplaceRequest as WireReplaceRequest,
} from './exchange-request.wire.js';
import { engineInt, epochMs, int64, isoTime } from './int64-wire.js';

export type OrderRecord = ReturnType<typeof orderRecord>;
export type ExecutionRecord = ReturnType<typeof executionRecord>;

/** Spec 2.1 from the engine's order: integers as int64 strings, times ISO; the engine extra (SMP id) left out. */
export function orderRecord(order: Order) {
  return {
    id: order.id,
    clordId: order.clordId,
    account: order.account,
    participant: order.participant,
    submittingParticipant: order.submittingParticipant,
    crossId: order.crossId,
    hostCrossId: order.hostCrossId,
    clientAccountId: order.clientAccountId,
    clientParticipantId: order.clientParticipantId,
    parentOrderId: order.parentOrderId,
    symbol: order.symbol,
    lastTradeId: order.lastTradeId,
    orderQty: int64(order.orderQty),
    cumQty: int64(order.cumQty),
    avgPx: int64(order.avgPx),
    leavesQty: int64(order.leavesQty),
    price: int64(order.price),
    stopPrice: int64(order.stopPrice),
    minQty: int64(order.minQty),
    cashOrderQty: int64(order.cashOrderQty),
    commissionsBasisPoints: int64(order.commissionsBasisPoints),
    makerCommissionsBasisPoints: int64(order.makerCommissionsBasisPoints),
    commissionNotionalTotalCollected: int64(order.commissionNotionalTotalCollected),
    insertTime: isoTime(order.insertTime),
    createTime: isoTime(order.createTime),
    lastTransactTime: isoTime(order.lastTransactTime),
    ...(order.goodTillTime === undefined ? {} : { goodTillTime: isoTime(order.goodTillTime) }),
    allOrNone: order.allOrNone,
    participateDontInitiate: order.participateDontInitiate,
    strictLimit: order.strictLimit,
    bestLimit: order.bestLimit,
    immediatelyExecutableLimit: order.immediatelyExecutableLimit,
    ignorePriceValidityChecks: order.ignorePriceValidityChecks,
    type: order.type,
    side: order.side,
    timeInForce: order.timeInForce,
    state: order.state,
    selfMatchPreventionInstruction: order.selfMatchPreventionInstruction,
    ...(order.orderCapacity ? { orderCapacity: order.orderCapacity } : {}),
    ...(order.manualOrderIndicator ? { manualOrderIndicator: order.manualOrderIndicator } : {}),
  };
}

/** Spec 2.4 from the engine's execution. */
export function executionRecord(execution: Execution) {
  return {
    id: execution.id,
    tradeId: execution.tradeId,
    traceId: execution.traceId,
    text: execution.text,
    order: orderRecord(execution.order),
    lastShares: int64(execution.lastShares),
    lastPx: int64(execution.lastPx),
    commissionNotionalCollected: int64(execution.commissionNotionalCollected),
    commissionSpreadPx: int64(execution.commissionSpreadPx),
    type: execution.type,
    ...(execution.orderRejectReason ? { orderRejectReason: execution.orderRejectReason } : {}),
    ...(execution.unsolicitedCancelReason ? { unsolicitedCancelReason: execution.unsolicitedCancelReason } : {}),
    transactTime: isoTime(execution.transactTime),
    transactTradeDate: { ...execution.transactTradeDate },
    aggressor: execution.aggressor,
    legPrices: execution.legPrices.map((leg) => ({
      ...leg,
      px: int64(leg.px),
      qty: int64(leg.qty),
      referencePx: int64(leg.referencePx),
    })),
  };
}

/** Spec 2.2 as the engine takes it; `path` prefixes field names in a 400 (`requests.3.orderQty`). */
export function engineOrderRequest(
  request: WireOrderRequest,
  account: string,
  participant: string,
  path = '',
): OrderRequest {
  const { orderQty, price, stopPrice, minQty, cashOrderQty, goodTillTime, ...rest } = request;
  return {
    ...rest,
    account,
    participant,
    submittingParticipant: participant,
    orderQty: engineInt(orderQty, `${path}orderQty`),
    price: engineInt(price, `${path}price`),
    stopPrice: engineInt(stopPrice, `${path}stopPrice`),
    minQty: engineInt(minQty, `${path}minQty`),
    cashOrderQty: engineInt(cashOrderQty, `${path}cashOrderQty`),
    goodTillTime: epochMs(goodTillTime),
  };
}

/** Spec 2.3 as the engine takes it. */
export function engineReplaceRequest(request: WireReplaceRequest, account: string, path = ''): ReplaceRequest {
  const { orderQty, price, stopPrice, minQty, goodTillTime, ...rest } = request;
  return {
    ...rest,
    account,
    orderQty: engineInt(orderQty, `${path}orderQty`),
    price: engineInt(price, `${path}price`),
    stopPrice: engineInt(stopPrice, `${path}stopPrice`),
    minQty: engineInt(minQty, `${path}minQty`),
    goodTillTime: epochMs(goodTillTime),
  };
}
