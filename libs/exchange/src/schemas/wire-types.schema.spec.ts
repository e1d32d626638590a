import {
  DateObjectSchema,
  DateTimeSchema,
  Int64StringSchema,
  NonNegativeInt64StringSchema,
  PositiveInt64StringSchema,
  isRealDate,
} from './wire-types.schema.js';

describe('Int64StringSchema', () => {
  it('takes decimal integers from -2^63 to 2^63-1', () => {
    for (const value of ['0', '1', '-1', '100', '9223372036854775807', '-9223372036854775808']) {
      expect(Int64StringSchema.safeParse(value).success).toBe(true);
    }
  });

  it('refuses values one past either end of the signed 64-bit range', () => {
    expect(Int64StringSchema.safeParse('9223372036854775808').success).toBe(false);
    expect(Int64StringSchema.safeParse('-9223372036854775809').success).toBe(false);
  });

  it('refuses anything that is not a canonical decimal integer string', () => {
    for (const value of ['', '1.5', '1e3', '+1', '01', '-0x1', ' 1', 'abc', '--1']) {
      expect(Int64StringSchema.safeParse(value).success).toBe(false);
    }
    expect(Int64StringSchema.safeParse(100).success).toBe(false);
  });
});

describe('DateObjectSchema', () => {
  it('takes real calendar days, leap days included', () => {
    expect(DateObjectSchema.safeParse({ year: 2024, month: 2, day: 29 }).success).toBe(true);
    expect(DateObjectSchema.safeParse({ year: 2026, month: 12, day: 31 }).success).toBe(true);
  });

  it('refuses days that do not exist, with the path of the day', () => {
    const result = DateObjectSchema.safeParse({ year: 2026, month: 2, day: 30 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].path).toEqual(['day']);
    expect(DateObjectSchema.safeParse({ year: 2025, month: 2, day: 29 }).success).toBe(false);
    expect(DateObjectSchema.safeParse({ year: 2026, month: 4, day: 31 }).success).toBe(false);
    expect(DateObjectSchema.safeParse({ year: 2026, month: 13, day: 1 }).success).toBe(false);
  });

  it('refuses fractions, strings and extra fields', () => {
    expect(DateObjectSchema.safeParse({ year: 2026, month: 1.5, day: 1 }).success).toBe(false);
    expect(DateObjectSchema.safeParse({ year: '2026', month: 1, day: 1 }).success).toBe(false);
    expect(DateObjectSchema.safeParse({ year: 2026, month: 1, day: 1, hour: 3 }).success).toBe(false);
  });

  it('knows early years without the Date.UTC two-digit-year trap', () => {
    expect(isRealDate(4, 2, 29)).toBe(true);
    expect(isRealDate(99, 2, 29)).toBe(false);
  });
});

describe('DateTimeSchema', () => {
  it('takes ISO 8601 UTC and offset date-times and refuses impossible ones', () => {
    expect(DateTimeSchema.safeParse('2026-11-22T18:30:00Z').success).toBe(true);
    expect(DateTimeSchema.safeParse('2026-11-22T18:30:00.123+02:00').success).toBe(true);
    expect(DateTimeSchema.safeParse('2026-02-30T00:00:00Z').success).toBe(false);
    expect(DateTimeSchema.safeParse('2026-11-22').success).toBe(false);
    expect(DateTimeSchema.safeParse('22/11/2026 18:30').success).toBe(false);
  });
});

describe('PositiveInt64StringSchema', () => {
  it('takes quantities and prices from 1 to 2^63-1', () => {
    for (const value of ['1', '55', '9223372036854775807'])
      expect(PositiveInt64StringSchema.safeParse(value).success).toBe(true);
  });

  it.each(['0', '-1', '-5', '9223372036854775808', '99999999999999999999', '1e308', '1e-300', '1.5', '01', ' 1', ''])(
    'refuses %j',
    (value) => {
      expect(PositiveInt64StringSchema.safeParse(value).success).toBe(false);
    },
  );

  it('refuses JSON numbers, which lose precision past 2^53', () => {
    expect(PositiveInt64StringSchema.safeParse(1).success).toBe(false);
  });
});

describe('NonNegativeInt64StringSchema', () => {
  it('takes zero (no minimum) but nothing below it', () => {
    expect(NonNegativeInt64StringSchema.safeParse('0').success).toBe(true);
    expect(NonNegativeInt64StringSchema.safeParse('-1').success).toBe(false);
    expect(NonNegativeInt64StringSchema.safeParse('-0').success).toBe(false);
  });
});
