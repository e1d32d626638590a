import { z } from 'zod';

import {
  ExecutionTypeSchema,
  ManualOrderIndicatorSchema,
  OrderCapacitySchema,
  OrderStateSchema,
  OrderTypeSchema,
  SelfMatchPreventionInstructionSchema,
  SideSchema,
  TimeInForceSchema,
} from './exchange-enums.schema.js';
import { DateObjectSchema, DateTimeSchema, Int64StringSchema } from './wire-types.schema.js';

// Records are answers: every field is optional because proto3 JSON may leave defaults out.
const text = z.string().optional();
const int64 = Int64StringSchema.optional();
const flag = z.boolean().optional();
const time = DateTimeSchema.optional();

/** Spec 2.1: the exchange order record. */
export const ExchangeOrderSchema = z.object({
  id: text,
  clordId: text,
  account: text,
  participant: text,
  submittingParticipant: text,
  crossId: text,
  hostCrossId: text,
  clientAccountId: text,
  clientParticipantId: text,
  parentOrderId: text,
  symbol: text,
  lastTradeId: text,
  orderQty: int64,
  cumQty: int64,
  avgPx: int64,
  leavesQty: int64,
  price: int64,
  stopPrice: int64,
  minQty: int64,
  cashOrderQty: int64,
  commissionsBasisPoints: int64,
  makerCommissionsBasisPoints: int64,
  commissionNotionalTotalCollected: int64,
  insertTime: time,
  createTime: time,
  lastTransactTime: time,
  goodTillTime: time,
  allOrNone: flag,
  participateDontInitiate: flag,
  strictLimit: flag,
  bestLimit: flag,
  immediatelyExecutableLimit: flag,
  ignorePriceValidityChecks: flag,
  type: OrderTypeSchema.optional(),
  side: SideSchema.optional(),
  timeInForce: TimeInForceSchema.optional(),
  state: OrderStateSchema.optional(),
  selfMatchPreventionInstruction: SelfMatchPreventionInstructionSchema.optional(),
  orderCapacity: OrderCapacitySchema.optional(),
  manualOrderIndicator: ManualOrderIndicatorSchema.optional(),
});
export type ExchangeOrder = z.infer<typeof ExchangeOrderSchema>;

export const LegPriceSchema = z.object({
  symbol: text,
  anchor: flag,
  px: text,
  qty: text,
  side: text,
  referencePx: text,
});

/** Spec 2.4; reject and cancel reasons are open-ended lists ("e.g."), so they stay strings. */
export const ExchangeExecutionSchema = z.object({
  id: text,
  tradeId: text,
  traceId: text,
  text: text,
  order: ExchangeOrderSchema.optional(),
  lastShares: text,
  lastPx: text,
  commissionNotionalCollected: text,
  commissionSpreadPx: text,
  type: ExecutionTypeSchema.optional(),
  orderRejectReason: text,
  unsolicitedCancelReason: text,
  transactTime: time,
  transactTradeDate: DateObjectSchema.optional(),
  aggressor: flag,
  legPrices: z.array(LegPriceSchema).optional(),
});
export type ExchangeExecution = z.infer<typeof ExchangeExecutionSchema>;
