import { z } from 'zod';

import {
  ORDER_SIDES,
  OrderIntentSchema,
  RETAIL_EXECUTION_TYPES,
  RETAIL_ORDER_STATES,
  RetailOrderTypeSchema,
  RetailTimeInForceSchema,
} from './retail-enums.schema.js';
import { AmountSchema } from './retail-primitives.schema.js';

/**
 * Records the retail upstream answers with (spec 2.9, 2.11; upstream-facts "Retail shapes"). Loose
 * objects: the gateway relays upstream bytes unchanged, so a field added upstream must not break a parse.
 */
export const MarketMetadataSchema = z.looseObject({
  slug: z.string(),
  icon: z.string().optional(),
  title: z.string().optional(),
  outcome: z.string().optional(),
  eventSlug: z.string().optional(),
  teamId: z.number().optional(),
  team: z.looseObject({ id: z.number(), name: z.string() }).optional(),
});

export const RetailOrderSchema = z.looseObject({
  id: z.string(),
  marketSlug: z.string(),
  side: z.enum(ORDER_SIDES),
  type: RetailOrderTypeSchema,
  price: AmountSchema,
  quantity: z.number(),
  cumQuantity: z.number(),
  leavesQuantity: z.number(),
  tif: RetailTimeInForceSchema,
  goodTillTime: z.string().optional(),
  intent: OrderIntentSchema,
  marketMetadata: MarketMetadataSchema.optional(),
  state: z.enum(RETAIL_ORDER_STATES),
  avgPx: AmountSchema.optional(),
  cashOrderQty: AmountSchema.optional(),
  insertTime: z.string().optional(),
  createTime: z.string().optional(),
  commissionNotionalTotalCollected: AmountSchema.optional(),
  commissionsBasisPoints: z.string().optional(),
  makerCommissionsBasisPoints: z.string().optional(),
});
export type RetailOrder = z.infer<typeof RetailOrderSchema>;

export const RetailExecutionSchema = z.looseObject({
  id: z.string(),
  order: RetailOrderSchema,
  lastShares: z.string().optional(),
  lastPx: AmountSchema.optional(),
  type: z.enum(RETAIL_EXECUTION_TYPES),
  text: z.string().optional(),
  orderRejectReason: z.string().optional(),
  unsolicitedCancelReason: z.string().optional(),
  transactTime: z.string().optional(),
  tradeId: z.string().optional(),
  aggressor: z.boolean().optional(),
  commissionNotionalCollected: AmountSchema.optional(),
});
export type RetailExecution = z.infer<typeof RetailExecutionSchema>;

/** `POST /v1/orders` and `POST /v1/order/close-position`: executions are filled for synchronous execution. */
export const CreateOrderResponseSchema = z.looseObject({
  id: z.string(),
  executions: z.array(RetailExecutionSchema).optional(),
});
export type CreateOrderResponse = z.infer<typeof CreateOrderResponseSchema>;
