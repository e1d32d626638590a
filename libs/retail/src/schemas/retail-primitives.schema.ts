import { z } from 'zod';

const DECIMAL = /^-?\d+(\.\d+)?$/;
const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;
const INT64_MAX = 9_223_372_036_854_775_807n;

/** upstream-facts "Retail shapes": money and prices are `{value: "<decimal string>", currency: "USD"}`. */
export const AmountSchema = z.looseObject({
  value: z.string().regex(DECIMAL, 'expected a decimal string'),
  currency: z.string(),
});
export type Amount = z.infer<typeof AmountSchema>;

/** At most this many digits in a client's decimal: more cannot survive the upstream's doubles. */
const MAX_DECIMAL_LENGTH = 24;

/** An Amount a client sends: a positive decimal in USD, at most `max` dollars, nothing else. */
function clientAmount(max: number, tooLarge: string) {
  return z
    .object({
      value: z
        .string()
        .max(MAX_DECIMAL_LENGTH)
        .regex(UNSIGNED_DECIMAL, 'expected a decimal string such as "0.55"')
        .refine((value) => Number(value) > 0, 'must be positive')
        .refine((value) => Number(value) <= max, tooLarge),
      currency: z.literal('USD'),
    })
    .strict();
}

/**
 * A price a client sends: a YES contract pays $1 (the fixture's band is 1..99 cents at priceScale 2: "a
 * binary never trades at 0 or 100"), so a price is a decimal strictly between 0 and 1 dollar.
 */
export const PriceAmountSchema = clientAmount(0.999999, 'a price is below 1 USD (a contract pays 1 USD)').meta({
  example: { value: '0.55', currency: 'USD' },
});

/** A cash amount a client sends (cashOrderQty): positive, and exact as a double (at most 2^53 - 1 dollars). */
export const CashAmountSchema = clientAmount(Number.MAX_SAFE_INTEGER, `at most ${Number.MAX_SAFE_INTEGER}`).meta({
  example: { value: '10.00', currency: 'USD' },
});

/** Market slugs are the engine's symbols: lower-case words joined by dashes; a slash would change the path. */
export const MarketSlugSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,199}$/, 'expected a market slug (lower-case letters, digits, dashes)')
  .meta({ example: 'aec-nfl-buf-kc-2026-11-22' });

/** spec 2.10 `maxBlockTime`: an int64 written as a string, here seconds, never negative. */
export const Int64StringSchema = z
  .string()
  .regex(/^\d{1,19}$/, 'expected an int64 as a decimal string')
  // Checked only once the format holds: BigInt of a malformed string throws.
  .refine((value) => !/^\d{1,19}$/.test(value) || BigInt(value) <= INT64_MAX, 'out of int64 range');

/**
 * Shares: spec 2.10 types them as doubles, but a contract is indivisible and a double is exact only up
 * to 2^53 - 1 (2^53 + 1 would be sent as …992): a positive safe integer.
 */
export const QuantitySchema = z
  .number()
  .refine(
    (value) => Number.isSafeInteger(value) && value > 0,
    `expected a whole number of shares from 1 to ${Number.MAX_SAFE_INTEGER}`,
  )
  .meta({ example: 1 });

/** Query strings repeat a key for arrays (`slugs=a&slugs=b`); one occurrence arrives as a plain string. */
export function repeatedQuery<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => (Array.isArray(value) ? value : [value]), z.array(item));
}

/** Query integers arrive as strings. */
export const QueryLimitSchema = z.coerce.number().int().min(1).max(1_000);
