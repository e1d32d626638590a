import { z } from 'zod';

import {
  ACTIVITY_TYPES,
  ORDER_INTENTS,
  RETAIL_MANUAL_ORDER_INDICATORS,
  RETAIL_ORDER_TYPES,
  RETAIL_TIME_IN_FORCES,
} from './retail-enums.wire.js';

// Retail requests as the sandbox reads them, from spec 2.10 and 4.2 and upstream-facts, never from
// the gateway's schemas. Bounds the documents do not state are not invented here.

/** upstream-facts: `{value: "<decimal string>", currency: "USD"}`; a client sends a positive one. */
const PositiveAmount = z.strictObject({
  value: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'expected a decimal string such as "0.55"')
    .refine((value) => Number(value) > 0, 'must be positive'),
  currency: z.literal('USD'),
});

/** A market slug names a market on the path; it cannot be empty or hold a slash. Length and case are not documented. */
const MarketSlug = z.string().regex(/^[^/?#\s]+$/, 'expected a market slug');
/** Spec 2.10 `quantity`: a double, in shares; no order has zero or fewer. */
const Quantity = z.number().positive().finite();
/** `maxBlockTime`: an int64 as a decimal string. */
const Int64String = z
  .string()
  .regex(/^\d{1,19}$/, 'expected an int64 as a decimal string')
  .refine((v) => !/^\d{1,19}$/.test(v) || BigInt(v) < 2n ** 63n, 'out of int64 range'); // checks all run: BigInt only on digits
const GoodTillTime = z.iso.datetime({ offset: true });
const Tif = z.enum(RETAIL_TIME_IN_FORCES);
const ManualOrderIndicator = z.enum(RETAIL_MANUAL_ORDER_INDICATORS);
const SlippageTolerance = z.strictObject({
  currentPrice: PositiveAmount,
  bips: z.int().nonnegative().optional(),
  ticks: z.int().nonnegative().optional(),
});

const OrderFields = z.strictObject({
  marketSlug: MarketSlug,
  intent: z.enum(ORDER_INTENTS),
  type: z.enum(RETAIL_ORDER_TYPES).optional(),
  price: PositiveAmount.optional(),
  quantity: Quantity.optional(),
  tif: Tif.optional(),
  participateDontInitiate: z.boolean().optional(),
  goodTillTime: GoodTillTime.optional(),
  cashOrderQty: PositiveAmount.optional(),
  manualOrderIndicator: ManualOrderIndicator.optional(),
  synchronousExecution: z.boolean().optional(),
  maxBlockTime: Int64String.optional(),
  slippageTolerance: SlippageTolerance.optional(),
});

function goodTill(order: { tif?: string; goodTillTime?: string }, ctx: z.RefinementCtx): void {
  if (order.tif === 'TIME_IN_FORCE_GOOD_TILL_DATE' && !order.goodTillTime)
    ctx.addIssue({ code: 'custom', path: ['goodTillTime'], message: 'required for TIME_IN_FORCE_GOOD_TILL_DATE' });
}

/** Spec 2.10: a limit order (the default type) needs a price and a quantity; cashOrderQty is for market orders. */
export const CreateOrder = OrderFields.superRefine((order, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if ((order.type ?? 'ORDER_TYPE_LIMIT') === 'ORDER_TYPE_LIMIT') {
    if (!order.price) issue('price', 'required for limit orders');
    if (order.quantity === undefined) issue('quantity', 'required for limit orders');
    if (order.cashOrderQty) issue('cashOrderQty', 'only for market orders');
  } else if (order.quantity === undefined && !order.cashOrderQty) {
    issue('quantity', 'a market order needs quantity or cashOrderQty');
  }
  goodTill(order, ctx);
});
export type CreateOrder = z.infer<typeof CreateOrder>;

export const PreviewOrder = z.strictObject({ request: CreateOrder });
export type PreviewOrder = z.infer<typeof PreviewOrder>;
export const CancelOrder = z.strictObject({ marketSlug: MarketSlug });
export type CancelOrder = z.infer<typeof CancelOrder>;
export const ModifyOrder = z
  .strictObject({
    marketSlug: MarketSlug,
    price: PositiveAmount.optional(),
    quantity: Quantity.optional(),
    tif: Tif.optional(),
    participateDontInitiate: z.boolean().optional(),
    goodTillTime: GoodTillTime.optional(),
  })
  .superRefine(goodTill);
export type ModifyOrder = z.infer<typeof ModifyOrder>;
/** No slugs: every open order. The number of slugs is not bounded by any document. */
export const CancelAllOrders = z.strictObject({ slugs: z.array(MarketSlug).optional() });
export type CancelAllOrders = z.infer<typeof CancelAllOrders>;
export const ClosePosition = z.strictObject({
  marketSlug: MarketSlug,
  manualOrderIndicator: ManualOrderIndicator.optional(),
  synchronousExecution: z.boolean().optional(),
  maxBlockTime: Int64String.optional(),
  slippageTolerance: SlippageTolerance.optional(),
});
export type ClosePosition = z.infer<typeof ClosePosition>;

/** A query key repeated for arrays arrives as an array, a single one as a string. */
const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((value) => (Array.isArray(value) ? value : [value]), z.array(item));
/** Spec 4.2: `limit` is an int32 (default 100); no maximum is documented. */
const Limit = z.coerce.number().pipe(z.int32().min(1));

// Queries ignore unknown parameters, as a web API usually does (bodies are strict).
export const OpenOrdersQuery = z.object({ slugs: repeated(MarketSlug).optional() });
export const PositionsQuery = z.object({
  market: MarketSlug.optional(),
  limit: Limit.optional(),
  cursor: z.string().min(1).optional(),
});
export const ActivitiesQuery = z.object({
  limit: Limit.optional(),
  cursor: z.string().min(1).optional(),
  marketSlug: MarketSlug.optional(),
  types: repeated(z.enum(ACTIVITY_TYPES)).optional(),
  sortOrder: z.enum(['SORT_ORDER_DESCENDING', 'SORT_ORDER_ASCENDING']).optional(),
});
export type ActivitiesQuery = z.infer<typeof ActivitiesQuery>;
