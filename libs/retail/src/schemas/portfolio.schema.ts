import { z } from 'zod';

import { ACTIVITY_TYPES } from './retail-enums.schema.js';
import { MarketMetadataSchema } from './order.schema.js';
import { AmountSchema } from './retail-primitives.schema.js';

/** upstream-facts "Position": counts are strings, money is Amounts. */
export const RetailPositionSchema = z.looseObject({
  netPosition: z.string(),
  qtyBought: z.string(),
  qtySold: z.string(),
  cost: AmountSchema,
  realized: AmountSchema,
  bodPosition: z.string(),
  expired: z.boolean(),
  updateTime: z.string().optional(),
  marketMetadata: MarketMetadataSchema.optional(),
  cashValue: AmountSchema.optional(),
  qtyAvailable: z.string().optional(),
});
export type RetailPosition = z.infer<typeof RetailPositionSchema>;

/** upstream-facts "Balance": every amount is a JSON number (dollars). */
export const RetailBalanceSchema = z.looseObject({
  currentBalance: z.number(),
  currency: z.string(),
  buyingPower: z.number(),
  lastUpdated: z.string().optional(),
  assetNotional: z.number().optional(),
  assetAvailable: z.number().optional(),
  pendingCredit: z.number().optional(),
  openOrders: z.number().optional(),
  unsettledFunds: z.number().optional(),
  pendingWithdrawals: z.number().optional(),
  marginRequirement: z.number().optional(),
  balanceReservation: z.number().optional(),
});
export type RetailBalance = z.infer<typeof RetailBalanceSchema>;

/** spec 2.12 `trade`, with the SDK's `price`. */
export const ActivityTradeSchema = z.looseObject({
  id: z.string(),
  marketSlug: z.string(),
  state: z.string(),
  createTime: z.string().optional(),
  updateTime: z.string().optional(),
  price: AmountSchema.optional(),
  qty: z.string(),
  isAggressor: z.boolean().optional(),
  costBasis: AmountSchema.optional(),
  realizedPnl: AmountSchema.optional(),
});

/** spec 2.12 names transactionId/status/times; the SDK reads a `transactions` list. Both are allowed. */
export const AccountBalanceChangeSchema = z.looseObject({
  transactionId: z.string().optional(),
  status: z.string().optional(),
  amount: AmountSchema.optional(),
  createTime: z.string().optional(),
  updateTime: z.string().optional(),
  transactions: z
    .array(z.looseObject({ transactionId: z.string(), status: z.string(), amount: AmountSchema }))
    .optional(),
});

export const ActivitySchema = z.looseObject({
  type: z.enum(ACTIVITY_TYPES),
  trade: ActivityTradeSchema.optional(),
  positionResolution: z.looseObject({ marketSlug: z.string() }).optional(),
  accountBalanceChange: AccountBalanceChangeSchema.optional(),
});
export type Activity = z.infer<typeof ActivitySchema>;

export const ActivitiesResponseSchema = z.looseObject({
  activities: z.array(ActivitySchema),
  nextCursor: z.string().optional(),
  eof: z.boolean().optional(),
});
export const PositionsResponseSchema = z.looseObject({
  positions: z.record(z.string(), RetailPositionSchema),
  nextCursor: z.string().optional(),
  eof: z.boolean().optional(),
});
