import { z } from 'zod';

// Query strings carry text: each primitive accepts the text form and yields the typed value. Parsing is
// by pattern rather than Number(), which would take '', ' 7', '0x10' and '1e3'.

const INT = /^-?\d{1,10}$/;
const DECIMAL = /^-?\d{1,15}(\.\d{1,10})?$/;
const INT32_MAX = 2 ** 31 - 1;

/** An integer within [min, max] (spec §4.4 types limit, offset and ids as int32). */
export const queryInt = (min = -(2 ** 31), max = INT32_MAX) =>
  z.string().regex(INT, 'expected an integer').transform(Number).pipe(z.number().int().min(min).max(max));

export const queryNumber = () =>
  z.string().regex(DECIMAL, 'expected a decimal number').transform(Number).pipe(z.number());

export const queryBoolean = () => z.enum(['true', 'false'], 'expected true or false').transform((v) => v === 'true');

/** A calendar date or an ISO 8601 date-time, passed on as written. */
export const queryDate = () =>
  z.union([z.iso.date(), z.iso.datetime({ offset: true })], 'expected YYYY-MM-DD or an ISO 8601 date-time');

export const queryText = (max = 256) => z.string().min(1).max(max);

/** Slugs are URL path segments upstream: letters, digits, dots, dashes and underscores, no slash. */
export const slug = () =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/, 'expected a slug (letters, digits, . _ -)');

/** A numeric identifier in a path: digits only, so nothing but an id reaches the upstream path. */
export const numericId = () => z.string().regex(/^\d{1,19}$/, 'expected a numeric id');

/** Longest list one repeated query key may carry: a guard against huge keys, not an upstream rule. */
export const MAX_LIST = 100;

/**
 * A repeated query key (`id=1&id=2`, upstream-facts: arrays are repeated keys). One occurrence arrives
 * as a plain string, several as an array; both become an array.
 */
export const queryList = <T extends z.ZodType<unknown, string>>(item: T) =>
  z.union([item.transform((v) => [v]), z.array(item).min(1).max(MAX_LIST)]);

/** Paging shared by the listings: limit 1..1000 (the largest page spec §8 names), offset ≥ 0. */
export const paging = {
  limit: queryInt(1, 1_000).optional(),
  offset: queryInt(0).optional(),
};

export const ordering = {
  orderBy: queryList(z.string().regex(/^[A-Za-z][A-Za-z0-9_.]{0,63}$/, 'expected a field name')).optional(),
  orderDirection: z.enum(['asc', 'desc']).optional(),
};
