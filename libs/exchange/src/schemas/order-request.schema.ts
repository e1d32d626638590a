import { hasDotSegment, wireText } from '@lib/core';
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
import { AccountFieldSchema, OrderIdFieldSchema, ParticipantFieldSchema } from './identity-fields.schema.js';
import {
  DateTimeSchema,
  JsonObjectSchema,
  NonNegativeInt64StringSchema,
  PositiveInt64StringSchema,
} from './wire-types.schema.js';

/** Spec 4.1 and 8: at most 20 orders per batch insert or batch replace; larger batches are rejected (413). */
export const MAX_BATCH_ORDERS = 20;

const positive = PositiveInt64StringSchema.optional();
const nonNegative = NonNegativeInt64StringSchema.optional();
const account = AccountFieldSchema.optional();
const participant = ParticipantFieldSchema.optional();
const flag = z.boolean().optional();
/** Free text the exchange keeps (clordId, symbol, ids): a clordId is also journaled and keyed on, so see `wireText`. */
const text = wireText(200).optional();
/**
 * A new order's clordId: also the path segment its outcome is read back at (`GET /orders/clord/<clordId>`,
 * and within the gateway's key `clordId:<participant>:<clordId>` that a 202's Location names), where dot
 * segments are refused; sent as `..` or `a/../b`, its PENDING outcome could not be read there, nor (for
 * `a/../b`) at the key the 202 named (a probe).
 */
const newClordId = wireText(200)
  .refine((value) => !hasDotSegment(value), 'a clordId may not be or hold the dot segments . and ..')
  .optional();

const ORDER_EXAMPLE = {
  symbol: 'aec-nfl-buf-kc-2026-11-22',
  side: 'SIDE_BUY',
  type: 'ORDER_TYPE_LIMIT',
  timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  orderQty: '1',
  price: '40',
};

/**
 * Spec 2.2. Which fields are required is not shown; an order without a symbol or a side cannot mean
 * anything on any exchange, so those two are required here and everything else is left to upstream.
 */
export const OrderRequestSchema = z
  .strictObject({
    type: OrderTypeSchema.optional(),
    side: SideSchema,
    orderQty: positive,
    symbol: wireText(200).min(1),
    price: positive,
    timeInForce: TimeInForceSchema.optional(),
    clordId: newClordId,
    account,
    stopPrice: positive,
    minQty: nonNegative,
    selfMatchPreventionId: text,
    quote: text,
    allOrNone: flag,
    sessionId: text,
    user: participant,
    clientAccountId: participant,
    clientParticipantId: participant,
    participateDontInitiate: flag,
    cashOrderQty: positive,
    strictLimit: flag,
    goodTillTime: DateTimeSchema.optional(),
    bestLimit: flag,
    immediatelyExecutableLimit: flag,
    selfMatchPreventionInstruction: SelfMatchPreventionInstructionSchema.optional(),
    orderCapacity: OrderCapacitySchema.optional(),
    ignorePriceValidityChecks: flag,
    manualOrderIndicator: ManualOrderIndicatorSchema.optional(),
  })
  .meta({ examples: [ORDER_EXAMPLE] });
export type OrderRequest = z.infer<typeof OrderRequestSchema>;

/** Spec 2.3: orderId names the order to change; the other fields are the new terms. */
export const ReplaceRequestSchema = z.strictObject({
  orderId: OrderIdFieldSchema,
  clordId: text,
  symbol: text,
  price: positive,
  orderQty: positive,
  timeInForce: TimeInForceSchema.optional(),
  stopPrice: positive,
  minQty: nonNegative,
  allOrNone: flag,
  participateDontInitiate: flag,
  strictLimit: flag,
  goodTillTime: DateTimeSchema.optional(),
  bestLimit: flag,
  immediatelyExecutableLimit: flag,
  manualOrderIndicator: ManualOrderIndicatorSchema.optional(),
});
export type ReplaceRequest = z.infer<typeof ReplaceRequestSchema>;

export const PreviewOrderRequestSchema = z
  .strictObject({ request: OrderRequestSchema })
  .meta({ examples: [{ request: ORDER_EXAMPLE }] });
export type PreviewOrderRequest = z.infer<typeof PreviewOrderRequestSchema>;

/** `max` documents the bound; callers check the size first so that an oversized batch is a 413, not a 400. */
export const BatchInsertRequestSchema = z
  .strictObject({ requests: z.array(OrderRequestSchema).min(1).max(MAX_BATCH_ORDERS) })
  .meta({ examples: [{ requests: [ORDER_EXAMPLE, { ...ORDER_EXAMPLE, price: '41' }] }] });
export type BatchInsertRequest = z.infer<typeof BatchInsertRequestSchema>;

export const BatchReplaceRequestSchema = z
  .strictObject({ requests: z.array(ReplaceRequestSchema).min(1).max(MAX_BATCH_ORDERS) })
  .meta({ examples: [{ requests: [{ orderId: 'O1', price: '41' }] }] });
export type BatchReplaceRequest = z.infer<typeof BatchReplaceRequestSchema>;

/** Payload not shown (spec 4.1): one order, by id or by the account's clordId. */
export const CancelOrderRequestSchema = z
  .strictObject({ orderId: OrderIdFieldSchema.optional(), clordId: text, account, symbol: text })
  .refine((body) => body.orderId !== undefined || body.clordId !== undefined, {
    message: 'orderId or clordId is required',
    path: ['orderId'],
  })
  .meta({ examples: [{ orderId: 'O1' }] });
export type CancelOrderRequest = z.infer<typeof CancelOrderRequestSchema>;

export const InsertOrderResponseSchema = z.object({ orderId: z.string() });
export const PreviewOrderResponseSchema = z.object({ previewOrder: ExchangeOrderSchema });
export const BatchInsertResponseSchema = z.object({ responses: z.array(InsertOrderResponseSchema) });
/** Spec 4.1: "objects with no listed fields". */
export const BatchReplaceResponseSchema = z.object({ responses: z.array(JsonObjectSchema) });
export const OpenOrdersResponseSchema = z.object({ orders: z.array(ExchangeOrderSchema) });
