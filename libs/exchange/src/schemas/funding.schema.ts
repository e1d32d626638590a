import { z } from 'zod';

import { AccountFieldSchema, AccountListSchema, FundingAccountFieldSchema } from './identity-fields.schema.js';
import { PositiveInt64StringSchema } from './wire-types.schema.js';

// Funding, position and balance payloads are not shown (spec 2.8, 4.1): these are the smallest shapes
// that name what the operation needs, strict so that no unlisted field (an identity among them) passes.

/** A deposit to the chosen participant's funding account of that processor: an amount in price units (cents). */
export const DepositRequestSchema = z
  .strictObject({
    amount: PositiveInt64StringSchema,
    currency: z.literal('USD').optional(),
    fundingAccountId: FundingAccountFieldSchema.optional(),
  })
  .meta({ examples: [{ amount: '100', currency: 'USD' }] });
export type DepositRequest = z.infer<typeof DepositRequestSchema>;

/** One participant's cash. */
export const BalanceRequestSchema = z.strictObject({ account: AccountFieldSchema.optional() });
export type BalanceRequest = z.infer<typeof BalanceRequestSchema>;

/** Several participants' cash. */
export const BalancesRequestSchema = z.strictObject({ accounts: AccountListSchema.optional() });
export type BalancesRequest = z.infer<typeof BalancesRequestSchema>;
