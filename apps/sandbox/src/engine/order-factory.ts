import type { Order, OrderRequest } from './order.types.js';

/** `firms/F/users/U` belongs to firm `firms/F`; any other account (a retail key) is its own firm. */
export function firmOf(account: string): string {
  const match = /^(firms\/[^/]+)\/users\/[^/]+$/.exec(account);
  return match ? match[1] : account;
}

function marketType(request: OrderRequest): boolean {
  return request.type === 'ORDER_TYPE_MARKET_TO_LIMIT' || request.type === 'ORDER_TYPE_STOP';
}

/**
 * Every request key, absent. Requests arrive in many shapes, and reading ~35 properties a request
 * lacks through megamorphic lookups cost ~7 us per order (bench/engine.bench.ts); spreading the
 * request over this template first gives one shape and monomorphic reads.
 */
const REQUEST_TEMPLATE: Record<keyof OrderRequest, undefined> = {
  symbol: undefined,
  side: undefined,
  type: undefined,
  orderQty: undefined,
  price: undefined,
  timeInForce: undefined,
  clordId: undefined,
  account: undefined,
  participant: undefined,
  submittingParticipant: undefined,
  parentOrderId: undefined,
  crossId: undefined,
  hostCrossId: undefined,
  stopPrice: undefined,
  minQty: undefined,
  selfMatchPreventionId: undefined,
  quote: undefined,
  allOrNone: undefined,
  sessionId: undefined,
  user: undefined,
  clientAccountId: undefined,
  clientParticipantId: undefined,
  participateDontInitiate: undefined,
  cashOrderQty: undefined,
  strictLimit: undefined,
  goodTillTime: undefined,
  bestLimit: undefined,
  immediatelyExecutableLimit: undefined,
  selfMatchPreventionInstruction: undefined,
  orderCapacity: undefined,
  ignorePriceValidityChecks: undefined,
  manualOrderIndicator: undefined,
};

/** A new order from a request, with proto3 defaults for what the request leaves out. */
export function newOrder(id: string, input: OrderRequest, now: number): Order {
  const request: OrderRequest = { ...REQUEST_TEMPLATE, ...input };
  const orderQty = request.orderQty ?? 0;
  return {
    id,
    clordId: request.clordId ?? '',
    account: request.account,
    participant: request.participant ?? request.account,
    submittingParticipant: request.submittingParticipant ?? request.participant ?? request.account,
    crossId: request.crossId ?? '',
    hostCrossId: request.hostCrossId ?? '',
    clientAccountId: request.clientAccountId ?? '',
    clientParticipantId: request.clientParticipantId ?? '',
    parentOrderId: request.parentOrderId ?? '',
    symbol: request.symbol,
    lastTradeId: '',
    selfMatchPreventionId: request.selfMatchPreventionId ?? '',
    orderQty,
    cumQty: 0,
    avgPx: 0,
    leavesQty: orderQty,
    // A market order has no price until its remainder rests at the last fill price.
    price: marketType(request) ? 0 : (request.price ?? 0),
    stopPrice: request.stopPrice ?? 0,
    minQty: request.minQty ?? 0,
    cashOrderQty: request.cashOrderQty ?? 0,
    commissionsBasisPoints: 0,
    makerCommissionsBasisPoints: 0,
    commissionNotionalTotalCollected: 0,
    insertTime: now,
    createTime: now,
    lastTransactTime: now,
    goodTillTime: request.goodTillTime,
    allOrNone: request.allOrNone ?? false,
    participateDontInitiate: request.participateDontInitiate ?? false,
    strictLimit: request.strictLimit ?? false,
    bestLimit: request.bestLimit ?? false,
    immediatelyExecutableLimit: request.immediatelyExecutableLimit ?? false,
    ignorePriceValidityChecks: request.ignorePriceValidityChecks ?? false,
    type: request.type ?? 'ORDER_TYPE_LIMIT',
    side: request.side,
    timeInForce: request.timeInForce ?? 'TIME_IN_FORCE_DAY',
    state: 'ORDER_STATE_PENDING_NEW',
    selfMatchPreventionInstruction:
      request.selfMatchPreventionInstruction ?? 'SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR',
    orderCapacity: request.orderCapacity,
    manualOrderIndicator: request.manualOrderIndicator,
  };
}
