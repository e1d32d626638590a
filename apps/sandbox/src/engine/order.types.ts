import type {
  ExecutionType,
  ManualOrderIndicator,
  OrderCapacity,
  OrderState,
  OrderType,
  OrdRejectReason,
  SelfMatchPreventionInstruction,
  Side,
  TimeInForce,
  UnsolicitedCxlReason,
} from './engine.enums.js';
import type { DateObject } from './instrument.types.js';

/**
 * An exchange order, every field of spec 2.1. Quantities and prices are integers in price units (the
 * REST layer writes int64 strings); times are epoch milliseconds; an unset string is '' and an unset
 * number 0, as in proto3. `selfMatchPreventionId` is an engine extra. Treat what the engine
 * hands out as read-only: a closed order is frozen and shared rather than copied.
 */
export interface Order {
  id: string;
  clordId: string;
  account: string;
  participant: string;
  submittingParticipant: string;
  crossId: string;
  hostCrossId: string;
  clientAccountId: string;
  clientParticipantId: string;
  parentOrderId: string;
  symbol: string;
  lastTradeId: string;
  selfMatchPreventionId: string;
  orderQty: number;
  cumQty: number;
  /** Volume-weighted fill price, rounded to an integer price unit (the wire type is int64). */
  avgPx: number;
  leavesQty: number;
  price: number;
  stopPrice: number;
  minQty: number;
  cashOrderQty: number;
  commissionsBasisPoints: number;
  makerCommissionsBasisPoints: number;
  commissionNotionalTotalCollected: number;
  /** When the order took its current place in the queue: entry, a trigger, or a priority-losing replace. */
  insertTime: number;
  createTime: number;
  lastTransactTime: number;
  goodTillTime?: number;
  allOrNone: boolean;
  participateDontInitiate: boolean;
  strictLimit: boolean;
  bestLimit: boolean;
  immediatelyExecutableLimit: boolean;
  ignorePriceValidityChecks: boolean;
  type: OrderType;
  side: Side;
  timeInForce: TimeInForce;
  state: OrderState;
  selfMatchPreventionInstruction: SelfMatchPreventionInstruction;
  orderCapacity?: OrderCapacity;
  manualOrderIndicator?: ManualOrderIndicator;
}

/** Spec 2.2 with numbers instead of int64 strings, plus who the order belongs to. */
export interface OrderRequest {
  symbol: string;
  side: Side;
  /** Default ORDER_TYPE_LIMIT. */
  type?: OrderType;
  orderQty?: number;
  /** 0 or absent means no price (proto3). */
  price?: number;
  /** Default TIME_IN_FORCE_DAY. */
  timeInForce?: TimeInForce;
  clordId?: string;
  /** `firms/F/users/U` on the exchange, the key id on the retail surface. */
  account: string;
  participant?: string;
  submittingParticipant?: string;
  parentOrderId?: string;
  crossId?: string;
  hostCrossId?: string;
  stopPrice?: number;
  minQty?: number;
  selfMatchPreventionId?: string;
  quote?: string;
  allOrNone?: boolean;
  sessionId?: string;
  user?: string;
  clientAccountId?: string;
  clientParticipantId?: string;
  participateDontInitiate?: boolean;
  /** A market buy or sell for an amount of cash (price units x multiplier) instead of a quantity. */
  cashOrderQty?: number;
  strictLimit?: boolean;
  goodTillTime?: number;
  bestLimit?: boolean;
  immediatelyExecutableLimit?: boolean;
  /** Default SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR. */
  selfMatchPreventionInstruction?: SelfMatchPreventionInstruction;
  orderCapacity?: OrderCapacity;
  ignorePriceValidityChecks?: boolean;
  manualOrderIndicator?: ManualOrderIndicator;
}

/** Spec 2.3: the order to change and the fields to change; `orderQty` is the new total quantity. */
export interface ReplaceRequest {
  orderId: string;
  account: string;
  clordId?: string;
  symbol?: string;
  price?: number;
  orderQty?: number;
  timeInForce?: TimeInForce;
  stopPrice?: number;
  minQty?: number;
  allOrNone?: boolean;
  participateDontInitiate?: boolean;
  strictLimit?: boolean;
  goodTillTime?: number;
  bestLimit?: boolean;
  immediatelyExecutableLimit?: boolean;
  manualOrderIndicator?: ManualOrderIndicator;
}

/** Names the order by id or by the account's clordId. */
export interface CancelRequest {
  account: string;
  orderId?: string;
  clordId?: string;
}

export interface LegPrice {
  symbol: string;
  anchor: boolean;
  px: number;
  qty: number;
  side: string;
  referencePx: number;
}

/** Spec 2.4; `order` is a snapshot taken when the execution happened. */
export interface Execution {
  id: string;
  tradeId: string;
  traceId: string;
  text: string;
  order: Order;
  lastShares: number;
  lastPx: number;
  commissionNotionalCollected: number;
  commissionSpreadPx: number;
  type: ExecutionType;
  orderRejectReason?: OrdRejectReason;
  unsolicitedCancelReason?: UnsolicitedCxlReason;
  transactTime: number;
  transactTradeDate: Readonly<DateObject>;
  aggressor: boolean;
  legPrices: LegPrice[];
}

export interface Trade {
  tradeId: string;
  symbol: string;
  px: number;
  qty: number;
  transactTime: number;
  transactTradeDate: Readonly<DateObject>;
  /** Absent for auction trades, which have no aggressor. */
  aggressorSide?: Side;
  buyOrderId: string;
  sellOrderId: string;
  buyAccount: string;
  sellAccount: string;
  /** Every sandbox trade clears at once; kept so statistics can tell cleared from total. */
  cleared: boolean;
}

/** What an insert or replace did to the caller's order; other orders' executions go out as events. */
export interface OrderResult {
  orderId: string;
  order: Order;
  executions: Execution[];
}
