import { JsonObjectSchema } from './wire-types.schema.js';

/** Funding, position and balance payloads: not shown (spec 2.8, 4.1); passed through. */
export const DepositRequestSchema = JsonObjectSchema;
export const BalanceRequestSchema = JsonObjectSchema;
