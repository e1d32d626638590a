import { CashAmountSchema, PriceAmountSchema, QuantitySchema } from './retail-primitives.schema.js';

const usd = (value: string) => ({ value, currency: 'USD' });

describe('PriceAmountSchema', () => {
  it.each(['0.01', '0.55', '0.99'])('takes %s, a price a contract paying 1 USD can trade at', (value) => {
    expect(PriceAmountSchema.safeParse(usd(value)).success).toBe(true);
  });

  it.each(['0', '0.00', '1', '1.00', '5', '-0.5', '1e308', '1e-300', '99999999999999999999', '0.5.5', ''])(
    'refuses %j',
    (value) => {
      expect(PriceAmountSchema.safeParse(usd(value)).success).toBe(false);
    },
  );

  it('refuses another currency', () => {
    expect(PriceAmountSchema.safeParse({ value: '0.5', currency: 'EUR' }).success).toBe(false);
  });
});

describe('CashAmountSchema', () => {
  it('takes a positive amount up to 2^53 - 1 dollars', () => {
    expect(CashAmountSchema.safeParse(usd('10.00')).success).toBe(true);
    expect(CashAmountSchema.safeParse(usd(String(Number.MAX_SAFE_INTEGER))).success).toBe(true);
  });

  it.each(['0', '-5', '9007199254740993', '99999999999999999999', '1e308'])('refuses %j', (value) => {
    expect(CashAmountSchema.safeParse(usd(value)).success).toBe(false);
  });
});

describe('QuantitySchema', () => {
  it('takes whole shares from 1 to 2^53 - 1', () => {
    expect(QuantitySchema.safeParse(1).success).toBe(true);
    expect(QuantitySchema.safeParse(Number.MAX_SAFE_INTEGER).success).toBe(true);
  });

  it.each([0, -1, 1.5, 2 ** 53, 2 ** 64, 1e308, 1e-300, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses %p',
    (value) => {
      expect(QuantitySchema.safeParse(value).success).toBe(false);
    },
  );
});
