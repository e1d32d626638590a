import { z } from 'zod';

import {
  ManualOrderIndicatorSchema,
  OrderCapacitySchema,
  OrderTypeSchema,
  SelfMatchPreventionInstructionSchema,
  SideSchema,
  TimeInForceSchema,
} from './exchange-enums.schema.js';
import { ExchangeOrderSchema } from './exchange-order.schema.js';
import { DateTimeSchema, Int64StringSchema, JsonObjectSchema } from './wire-types.schema.js';

/** Spec 4.1 and 8: at most 20 orders per batch insert or batch replace; larger batches are rejected (413). */
export const MAX_BATCH_ORDERS = 20;

const int64 = Int64StringSchema.optional();
const flag = z.boolean().optional();
const text = z.string().optional();

/**
 * Spec 2.2. Which fields are required is not shown; an order without a symbol or a side cannot mean
 * anything on any exchange, so those two are required here and everything else is left to upstream.
 */
export const OrderRequestSchema = z.strictObject({
  type: OrderTypeSchema.optional(),
  side: SideSchema,
  orderQty: int64,
  symbol: z.string().min(1),
  price: int64,
  timeInForce: TimeInForceSchema.optional(),
  clordId: text,
  account: text,
  stopPrice: int64,
  minQty: int64,
  selfMatchPreventionId: text,
  quote: text,
  allOrNone: flag,
  sessionId: text,
  user: text,
  clientAccountId: text,
  clientParticipantId: text,
  participateDontInitiate: flag,
  cashOrderQty: int64,
  strictLimit: flag,
  goodTillTime: DateTimeSchema.optional(),
  bestLimit: flag,
  immediatelyExecutableLimit: flag,
  selfMatchPreventionInstruction: SelfMatchPreventionInstructionSchema.optional(),
  orderCapacity: OrderCapacitySchema.optional(),
  ignorePriceValidityChecks: flag,
  manualOrderIndicator: ManualOrderIndicatorSchema.optional(),
});
export type OrderRequest = z.infer<typeof OrderRequestSchema>;

/** Spec 2.3: orderId names the order to change; the other fields are the new terms. */
export const ReplaceRequestSchema = z.strictObject({
  orderId: z.string().min(1),
  clordId: text,
  symbol: text,
  price: int64,
  orderQty: int64,
  timeInForce: TimeInForceSchema.optional(),
  stopPrice: int64,
  minQty: int64,
  allOrNone: flag,
  participateDontInitiate: flag,
  strictLimit: flag,
  goodTillTime: DateTimeSchema.optional(),
  bestLimit: flag,
  immediatelyExecutableLimit: flag,
  manualOrderIndicator: ManualOrderIndicatorSchema.optional(),
});
export type ReplaceRequest = z.infer<typeof ReplaceRequestSchema>;

export const PreviewOrderRequestSchema = z.strictObject({ request: OrderRequestSchema });
export type PreviewOrderRequest = z.infer<typeof PreviewOrderRequestSchema>;

/** `max` documents the bound; callers check the size first so that an oversized batch is a 413, not a 400. */
export const BatchInsertRequestSchema = z.strictObject({ requests: z.array(OrderRequestSchema).min(1).max(MAX_BATCH_ORDERS) });
export type BatchInsertRequest = z.infer<typeof BatchInsertRequestSchema>;

export const BatchReplaceRequestSchema = z.strictObject({ requests: z.array(ReplaceRequestSchema).min(1).max(MAX_BATCH_ORDERS) });
export type BatchReplaceRequest = z.infer<typeof BatchReplaceRequestSchema>;

/** Payload not shown (spec 4.1): passed through. */
export const CancelOrderRequestSchema = JsonObjectSchema;
export type CancelOrderRequest = z.infer<typeof CancelOrderRequestSchema>;

export const InsertOrderResponseSchema = z.object({ orderId: z.string() });
export const PreviewOrderResponseSchema = z.object({ previewOrder: ExchangeOrderSchema });
export const BatchInsertResponseSchema = z.object({ responses: z.array(InsertOrderResponseSchema) });
/** Spec 4.1: "objects with no listed fields". */
export const BatchReplaceResponseSchema = z.object({ responses: z.array(JsonObjectSchema) });
export const OpenOrdersResponseSchema = z.object({ orders: z.array(ExchangeOrderSchema) });
