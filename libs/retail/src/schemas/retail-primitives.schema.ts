import { z } from 'zod';

const DECIMAL = /^-?\d+(\.\d+)?$/;
const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;
const INT64_MAX = 9_223_372_036_854_775_807n;

/** upstream-facts "Retail shapes": money and prices are `{value: "<decimal string>", currency: "USD"}`. */
export const AmountSchema = z.looseObject({ value: z.string().regex(DECIMAL, 'expected a decimal string'), currency: z.string() });
export type Amount = z.infer<typeof AmountSchema>;

/** An Amount a client sends: a positive decimal in USD, nothing else. */
export const PositiveAmountSchema = z
  .object({
    value: z
      .string()
      .regex(UNSIGNED_DECIMAL, 'expected a decimal string such as "0.55"')
      .refine((value) => Number(value) > 0, 'must be positive'),
    currency: z.literal('USD'),
  })
  .strict();

/** Market slugs are the engine's symbols: lower-case words joined by dashes; a slash would change the path. */
export const MarketSlugSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,199}$/, 'expected a market slug (lower-case letters, digits, dashes)');

/** spec 2.10 `maxBlockTime`: an int64 written as a string, here seconds, never negative. */
export const Int64StringSchema = z
  .string()
  .regex(/^\d{1,19}$/, 'expected an int64 as a decimal string')
  // Checked only once the format holds: BigInt of a malformed string throws.
  .refine((value) => !/^\d{1,19}$/.test(value) || BigInt(value) <= INT64_MAX, 'out of int64 range');

/** Shares: spec 2.10 types them as doubles; zero or negative makes no order. */
export const QuantitySchema = z.number().positive().finite();

/** Query strings repeat a key for arrays (`slugs=a&slugs=b`); one occurrence arrives as a plain string. */
export function repeatedQuery<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => (Array.isArray(value) ? value : [value]), z.array(item));
}

/** Query integers arrive as strings. */
export const QueryLimitSchema = z.coerce.number().int().min(1).max(1_000);
