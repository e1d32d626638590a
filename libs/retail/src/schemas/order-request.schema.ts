import { z } from 'zod';

import {
  OrderIntentSchema,
  RetailManualOrderIndicatorSchema,
  RetailOrderTypeSchema,
  RetailTimeInForceSchema,
} from './retail-enums.schema.js';
import {
  CashAmountSchema,
  Int64StringSchema,
  MarketSlugSchema,
  PriceAmountSchema,
  QuantitySchema,
} from './retail-primitives.schema.js';

/** upstream-facts: `{currentPrice: Amount, bips?, ticks?}`; how far from currentPrice a market order may fill. */
export const SlippageToleranceSchema = z
  .object({
    currentPrice: PriceAmountSchema,
    bips: z.int().nonnegative().optional(),
    ticks: z.int().nonnegative().optional(),
  })
  .strict();

const GoodTillTimeSchema = z.iso.datetime({ offset: true });

const ORDER_EXAMPLE = {
  marketSlug: 'aec-nfl-buf-kc-2026-11-22',
  intent: 'ORDER_INTENT_BUY_LONG',
  type: 'ORDER_TYPE_LIMIT',
  price: { value: '0.40', currency: 'USD' },
  quantity: 1,
};

const CreateOrderFields = z
  .object({
    marketSlug: MarketSlugSchema,
    intent: OrderIntentSchema,
    type: RetailOrderTypeSchema.optional(),
    price: PriceAmountSchema.optional(),
    quantity: QuantitySchema.optional(),
    tif: RetailTimeInForceSchema.optional(),
    participateDontInitiate: z.boolean().optional(),
    goodTillTime: GoodTillTimeSchema.optional(),
    cashOrderQty: CashAmountSchema.optional(),
    manualOrderIndicator: RetailManualOrderIndicatorSchema.optional(),
    synchronousExecution: z.boolean().optional(),
    maxBlockTime: Int64StringSchema.optional(),
    slippageTolerance: SlippageToleranceSchema.optional(),
  })
  .strict();

type CreateOrderFields = z.infer<typeof CreateOrderFields>;

/**
 * The rules spec 2.10 states beyond field types, checked before any budget is spent. An absent
 * `type` is a limit order (the upstream default), so it needs a price.
 */
function orderRules(order: CreateOrderFields, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if ((order.type ?? 'ORDER_TYPE_LIMIT') === 'ORDER_TYPE_LIMIT') {
    if (!order.price) issue('price', 'required for limit orders');
    if (order.quantity === undefined) issue('quantity', 'required for limit orders');
    if (order.cashOrderQty) issue('cashOrderQty', 'only for market orders');
  } else if (order.quantity === undefined && !order.cashOrderQty) {
    issue('quantity', 'market orders need quantity or cashOrderQty');
  }
  goodTillRule(order, ctx);
}

function goodTillRule(order: { tif?: string; goodTillTime?: string }, ctx: z.RefinementCtx): void {
  if (order.tif === 'TIME_IN_FORCE_GOOD_TILL_DATE' && !order.goodTillTime) {
    ctx.addIssue({ code: 'custom', path: ['goodTillTime'], message: 'required for TIME_IN_FORCE_GOOD_TILL_DATE' });
  }
}

/** `POST /v1/orders` (upstream-facts CreateOrder). */
export const CreateOrderSchema = CreateOrderFields.superRefine(orderRules).meta({ examples: [ORDER_EXAMPLE] });
export type CreateOrder = z.infer<typeof CreateOrderSchema>;

/** `POST /v1/order/preview`. */
export const PreviewOrderSchema = z
  .object({ request: CreateOrderSchema })
  .strict()
  .meta({ examples: [{ request: ORDER_EXAMPLE }] });
export type PreviewOrder = z.infer<typeof PreviewOrderSchema>;

/** `POST /v1/order/{id}/cancel`. */
export const CancelOrderSchema = z.object({ marketSlug: MarketSlugSchema }).strict();
export type CancelOrder = z.infer<typeof CancelOrderSchema>;

/** `POST /v1/order/{id}/modify`: the fields to change. */
export const ModifyOrderSchema = z
  .object({
    marketSlug: MarketSlugSchema,
    price: PriceAmountSchema.optional(),
    quantity: QuantitySchema.optional(),
    tif: RetailTimeInForceSchema.optional(),
    participateDontInitiate: z.boolean().optional(),
    goodTillTime: GoodTillTimeSchema.optional(),
  })
  .strict()
  .superRefine(goodTillRule);
export type ModifyOrder = z.infer<typeof ModifyOrderSchema>;

/** `POST /v1/orders/open/cancel`; no slugs cancels every open order. Spec: at most 100 markets at once on the channels, kept here too. */
export const CancelAllOrdersSchema = z.object({ slugs: z.array(MarketSlugSchema).max(100).optional() }).strict();
export type CancelAllOrders = z.infer<typeof CancelAllOrdersSchema>;

/** `POST /v1/order/close-position`. */
export const ClosePositionSchema = z
  .object({
    marketSlug: MarketSlugSchema,
    manualOrderIndicator: RetailManualOrderIndicatorSchema.optional(),
    synchronousExecution: z.boolean().optional(),
    maxBlockTime: Int64StringSchema.optional(),
    slippageTolerance: SlippageToleranceSchema.optional(),
  })
  .strict();
export type ClosePosition = z.infer<typeof ClosePositionSchema>;
