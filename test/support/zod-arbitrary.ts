import fc from 'fast-check';
import type { z } from 'zod';

// Candidate inputs for a zod schema: the structure of the schema (objects, arrays, optional keys,
// unknown keys) filled with leaf values from a fixed pool of near-misses. For each leaf, the pool is
// split by the leaf's own schema into values it accepts and values it refuses; accepted ones are drawn
// far more often, so a corpus holds many whole requests a side accepts and many it refuses, each
// refused one usually for a single field.

const STRINGS = [
  '',
  '0',
  '1',
  '-1',
  '3',
  '10',
  '11',
  '20',
  '50',
  '60',
  '61',
  '100',
  '101',
  '1000',
  '1001',
  '2147483648',
  '1e3',
  '01',
  ' 7',
  '0x10',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '0.55',
  '1.5',
  'true',
  'false',
  'asc',
  'desc',
  '2026-11-22',
  '2026-02-30',
  '2026-11-22T18:30:00Z',
  '2026-11-22T18:30:00+02:00',
  '2026-11-22 18:30',
  'USD',
  'aec-nfl-buf-kc-2026-11-22',
  'AEC-NFL-BUF',
  'a_b.c',
  'a/b',
  'x'.repeat(201),
  'x'.repeat(600),
  'PROVIDER_SPORTSDATA',
  'O1',
  'general',
  'futures',
  'sport',
  'trending',
  'active',
  'upcoming',
  'firms/TESTFIRM/users/alice',
  'SIDE_BUY',
  'ORDER_TYPE_LIMIT',
  'ORDER_TYPE_MARKET',
  'TIME_IN_FORCE_DAY',
  'TIME_IN_FORCE_GOOD_TILL_DATE',
  'INSTRUMENT_STATE_OPEN',
  'FILTER_OPERATOR_EQ',
  'FILTER_OPERATOR_IN',
  'ORDER_INTENT_BUY_LONG',
  'MANUAL_ORDER_INDICATOR_MANUAL',
  'ACTIVITY_TYPE_TRADE',
  'SORT_ORDER_ASCENDING',
  'TRADABLE_FILTER_ALL',
  'ORDER_STATE_FILTER_OPEN',
  'UNKNOWN_VALUE',
];
const OTHERS: unknown[] = [
  0,
  1,
  3,
  -1,
  1.5,
  10,
  20,
  50,
  100,
  1000,
  1001,
  2 ** 31,
  2 ** 53,
  true,
  false,
  null,
  { value: '0.55', currency: 'USD' },
  { value: '0', currency: 'USD' },
  { value: '1', currency: 'EUR' },
  {},
  { year: 2026, month: 11, day: 22 },
  { year: 2026, month: 2, day: 30 },
  { values: ['a'] },
];

export interface Def {
  type: string;
  [key: string]: unknown;
}

/** zod 4's definition of a schema: its `type` and the parts that type has. */
export const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch']);
const ABSENT = Symbol('absent');

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (WRAPPERS.has(defOf(current).type)) current = defOf(current).innerType as z.ZodType;
  return current;
}

/** Candidates for `schema`; `query` draws leaves from strings only, as a query string carries. */
export function candidates(schema: z.ZodType, query = false, depth = 0): fc.Arbitrary<unknown> {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'object' && depth < 4) return objectOf(def.shape as Record<string, z.ZodType>, query, depth);
  if (def.type === 'array' && depth < 4) return arrayOf(def.element as z.ZodType, query, depth);
  if (
    def.type === 'union' &&
    (def.options as z.ZodType[]).some((o) => ['object', 'array'].includes(defOf(unwrap(o)).type))
  ) {
    return fc.oneof(...(def.options as z.ZodType[]).map((option) => candidates(option, query, depth)));
  }
  if (def.type === 'pipe' && defOf(def.in as z.ZodType).type === 'transform')
    return candidates(def.out as z.ZodType, query, depth);
  return leaf(schema, query);
}

function leaf(schema: z.ZodType, query: boolean): fc.Arbitrary<unknown> {
  const pool = query ? STRINGS : [...STRINGS, ...OTHERS];
  const accepted = pool.filter((value) => schema.safeParse(value).success);
  const refused = pool.filter((value) => !schema.safeParse(value).success);
  // Near misses (refused values of a JSON type the leaf accepts: 1001 for a page size) are drawn more often than other refusals.
  const types = new Set(accepted.map((value) => typeof value));
  const near = refused.filter((value) => types.has(typeof value));
  const far = refused.filter((value) => !types.has(typeof value));
  const options = [];
  if (accepted.length > 0) options.push({ weight: 12, arbitrary: fc.constantFrom(...accepted) });
  if (near.length > 0) options.push({ weight: 2, arbitrary: fc.constantFrom(...near) });
  if (far.length > 0) options.push({ weight: 1, arbitrary: fc.constantFrom(...far) });
  return fc.oneof(...options);
}

function objectOf(shape: Record<string, z.ZodType>, query: boolean, depth: number): fc.Arbitrary<unknown> {
  const fields = Object.entries(shape).map(([key, field]) => {
    const value = candidates(field, query, depth + 1);
    const optional = field.safeParse(undefined).success;
    return [
      key,
      optional ? fc.oneof({ weight: 3, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: value }) : value,
    ] as const;
  });
  const record = fc
    .tuple(...fields.map(([, arbitrary]) => arbitrary))
    .map((values) => Object.fromEntries(fields.map(([key], i) => [key, values[i]]).filter(([, v]) => v !== ABSENT)));
  return fc.oneof(
    { weight: 20, arbitrary: record },
    { weight: 1, arbitrary: record.map((value) => ({ ...value, unknownField: '1' })) },
  );
}

function arrayOf(element: z.ZodType, query: boolean, depth: number): fc.Arbitrary<unknown> {
  const item = candidates(element, query, depth + 1);
  const many = (n: number) => item.map((value) => Array.from({ length: n }, () => value));
  const lists = [
    { weight: 16, arbitrary: fc.array(item, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: many(21) },
    { weight: 1, arbitrary: many(101) },
  ];
  // A query string cannot carry an empty list (no key at all is "absent").
  return fc.oneof(...lists, ...(query ? [] : [{ weight: 1, arbitrary: fc.constant([]) as fc.Arbitrary<unknown[]> }]));
}
