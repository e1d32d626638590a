import { z } from 'zod';

const INT64_PATTERN = /^-?(0|[1-9][0-9]*)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** True for a canonical decimal integer that fits a signed 64-bit integer (spec conventions: int64 as strings). */
export function isInt64String(value: string): boolean {
  if (!INT64_PATTERN.test(value)) return false;
  const n = BigInt(value);
  return n >= INT64_MIN && n <= INT64_MAX;
}

/** Spec conventions: quantities and prices are strings holding 64-bit integers. JSON numbers are refused (they lose precision past 2^53). */
export const Int64StringSchema = z
  .string()
  .refine(isInt64String, { message: 'expected a signed 64-bit integer written as a decimal string, e.g. "100"' })
  .meta({ format: 'int64', pattern: INT64_PATTERN.source, example: '100' });

const isPositive = (value: string): boolean => isInt64String(value) && !value.startsWith('-') && value !== '0';
const isNonNegative = (value: string): boolean => isInt64String(value) && !value.startsWith('-');

/** Quantities and prices a client sends: int64 strings above zero (issue 14: "-5" and "0" make no order). */
export const PositiveInt64StringSchema = z
  .string()
  .refine(isPositive, { message: 'expected a positive 64-bit integer written as a decimal string, e.g. "100"' })
  .meta({ format: 'int64', pattern: '^[1-9][0-9]*$', example: '100' });

/** minQty: zero means no minimum (the proto3 default); below zero means nothing. */
export const NonNegativeInt64StringSchema = z
  .string()
  .refine(isNonNegative, { message: 'expected a non-negative 64-bit integer written as a decimal string, e.g. "0"' })
  .meta({ format: 'int64', pattern: '^(0|[1-9][0-9]*)$', example: '0' });

/** Spec conventions: ISO 8601 UTC; an offset is accepted too (protobuf Timestamp JSON does), impossible dates are not. */
export const DateTimeSchema = z.iso.datetime({ offset: true }).meta({ example: '2026-11-22T18:30:00Z' });

/** Spec 4.1 instrument list: `YYYY-MM-DD`, a real calendar date. */
export const IsoDateSchema = z.iso.date().meta({ example: '2026-11-22' });

export function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC maps years 0-99 to 1900-1999, so set the year explicitly before comparing.
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Spec conventions: a date object {year, month, day}; it must name a real day (no February 30). */
export const DateObjectSchema = z
  .strictObject({
    year: z.int().min(1).max(9999),
    month: z.int().min(1).max(12),
    day: z.int().min(1).max(31),
  })
  .refine((d) => isRealDate(d.year, d.month, d.day), { message: 'not a real calendar date', path: ['day'] });
export type DateObject = z.infer<typeof DateObjectSchema>;

/** Spec 2.5 `expirationTime` and trading-schedule `timeOfDay`. */
export const TimeOfDaySchema = z.strictObject({
  hours: z.int().min(0).max(23),
  minutes: z.int().min(0).max(59),
  seconds: z.int().min(0).max(59),
});
export type TimeOfDay = z.infer<typeof TimeOfDaySchema>;

/** A payload the spec marks "not shown": any JSON object, passed through as sent. */
export const JsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObjectSchema>;
