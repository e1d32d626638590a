import {
  exchangeOrderTerms,
  exchangeReplaceTerms,
  payoutPrice,
  retailModifyTerms,
  retailOrderTerms,
} from './order-terms.js';

describe('order terms', () => {
  it('prices an exchange buy at qty × price and a sell at qty × (1 − price), price in 10^-scale dollars', () => {
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_BUY', orderQty: '90', price: '60' }, 2)).toMatchObject({
      qty: 90,
      notional: 54,
      side: 'buy',
    });
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_SELL', orderQty: '90', price: '60' }, 2).notional).toBeCloseTo(
      36,
    );
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_BUY', orderQty: '7' }, 2).notional).toBe(7);
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_BUY', cashOrderQty: '1250' }, 2).notional).toBe(12.5);
  });

  it('bounds a cash order without a quantity at the most contracts it buys at the lowest price', () => {
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_BUY', cashOrderQty: '600' }, 2).mostQty).toBe(600);
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_BUY', orderQty: '5', cashOrderQty: '600' }, 2).mostQty).toBe(
      undefined,
    );
    const cash = (value: string) =>
      retailOrderTerms({
        marketSlug: 'm',
        intent: 'ORDER_INTENT_BUY_LONG',
        type: 'ORDER_TYPE_MARKET',
        cashOrderQty: { value, currency: 'USD' },
      }).mostQty;
    expect(cash('6.00')).toBe(600);
    expect(cash('0.07')).toBe(7); // 0.07 / 0.01 is 7.000000000000001 in floating point
    expect(cash('0.075')).toBe(8);
  });

  it('judges a cash sell at the most contracts it can sell, each giving up 1 − the lowest price; a cash buy at its amount', () => {
    // $5 at scale 2: 500 units, 500 contracts at 1 cent, $495 at worst.
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_SELL', cashOrderQty: '500' }, 2).notional).toBeCloseTo(495);
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_BUY', cashOrderQty: '500' }, 2).notional).toBe(5);
    const retail = (intent: 'ORDER_INTENT_SELL_LONG' | 'ORDER_INTENT_BUY_LONG') =>
      retailOrderTerms({
        marketSlug: 'm',
        intent,
        type: 'ORDER_TYPE_MARKET',
        cashOrderQty: { value: '5.00', currency: 'USD' },
      }).notional;
    expect(retail('ORDER_INTENT_SELL_LONG')).toBeCloseTo(495);
    expect(retail('ORDER_INTENT_BUY_LONG')).toBe(5);
  });

  it('prices a replace of unknown side at the worse side', () => {
    expect(exchangeReplaceTerms({ orderId: 'O1', orderQty: '10', price: '30' }, 2, 'body.requests.0')).toMatchObject({
      qty: 10,
      notional: 7,
    });
    expect(exchangeReplaceTerms({ orderId: 'O1', price: '30' }, 2, 'body.requests.0')).toMatchObject({
      reduces: 'yes',
      notional: undefined,
      qtyUnknown: true,
    });
  });

  it("judges a new price alone at the order's known quantity, and says when it is not known", () => {
    const origin = { market: 'm', side: 'buy', qty: 1_000 } as const;
    expect(exchangeReplaceTerms({ orderId: 'O1', price: '90' }, 2, 'body', origin)).toMatchObject({
      qty: undefined,
      notional: 900,
    });
    expect(exchangeReplaceTerms({ orderId: 'O1', timeInForce: 'TIME_IN_FORCE_DAY' }, 2, 'body', origin)).toMatchObject({
      notional: undefined,
    });
    expect(
      exchangeReplaceTerms({ orderId: 'O1', price: '90' }, 2, 'body', { market: 'm', side: 'buy' }).qtyUnknown,
    ).toBe(true);
    expect(
      retailModifyTerms({ marketSlug: 'm', price: { value: '0.9', currency: 'USD' } }, 'body', {
        qty: 100,
        side: 'buy',
      }),
    ).toMatchObject({
      notional: 90,
    });
    expect(retailModifyTerms({ marketSlug: 'm', price: { value: '0.9', currency: 'USD' } }).qtyUnknown).toBe(true);
  });

  it('takes the larger of the quantity and the cash amount when both are sent (the exchange trades the quantity)', () => {
    const order = { symbol: 's', side: 'SIDE_BUY', orderQty: '10000', price: '99', cashOrderQty: '1' } as const;
    expect(exchangeOrderTerms(order, 2).notional).toBeCloseTo(9_900);
    expect(exchangeOrderTerms({ ...order, orderQty: '1', cashOrderQty: '5000' }, 2).notional).toBe(50);
    const retail = {
      marketSlug: 'm',
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_MARKET',
      quantity: 1_000,
      cashOrderQty: { value: '1', currency: 'USD' },
    } as const;
    expect(retailOrderTerms(retail).notional).toBe(1_000);
    expect(retailOrderTerms({ ...retail, quantity: 1, cashOrderQty: { value: '20', currency: 'USD' } }).notional).toBe(
      20,
    );
  });

  it('reads a price outside $0-$1 at the nearer end: a sell above $1 is never a negative worst case', () => {
    const sell = exchangeOrderTerms({ symbol: 's', side: 'SIDE_SELL', orderQty: '10', price: '150' }, 2);
    expect(sell.notional).toBe(0);
    expect(exchangeOrderTerms({ symbol: 's', side: 'SIDE_BUY', orderQty: '10', price: '150' }, 2).notional).toBe(10);
    expect(exchangeReplaceTerms({ orderId: 'O1', orderQty: '10', price: '150' }, 2, 'body.requests.0').notional).toBe(
      10,
    );
    expect(payoutPrice(-0.5)).toBe(0);
    expect(payoutPrice(0.42)).toBe(0.42);
  });

  it("takes a replace's market and side from the order as the gateway knows it, never the body's symbol", () => {
    const replace = { orderId: 'O1', orderQty: '10', price: '30', symbol: 'other' };
    expect(exchangeReplaceTerms(replace, 2, 'body.requests.0', { market: 'm', side: 'buy' })).toMatchObject({
      market: 'm',
      side: 'buy',
      notional: 3,
    });
    const unknown = exchangeReplaceTerms(replace, 2, 'body.requests.0');
    expect(unknown).toMatchObject({ market: undefined, marketUnknown: true, orderId: 'O1' });
  });

  it('prices retail buys of either outcome at the price and sells at 1 − price; a cash order at its amount', () => {
    const order = {
      marketSlug: 'm',
      type: 'ORDER_TYPE_LIMIT',
      price: { value: '0.25', currency: 'USD' },
      quantity: 4,
    } as const;
    expect(retailOrderTerms({ ...order, intent: 'ORDER_INTENT_BUY_SHORT' })).toMatchObject({
      notional: 1,
      reduces: 'no',
    });
    // A sell reduces only the holding it sells: SELL_LONG against a long YES, SELL_SHORT (buys YES) against a NO holding.
    expect(retailOrderTerms({ ...order, intent: 'ORDER_INTENT_SELL_LONG' })).toMatchObject({
      notional: 3,
      reduces: 'by-position',
      positionSide: 'sell',
    });
    expect(retailOrderTerms({ ...order, intent: 'ORDER_INTENT_SELL_SHORT' })).toMatchObject({
      reduces: 'by-position',
      positionSide: 'buy',
    });
    expect(
      retailOrderTerms({
        marketSlug: 'm',
        intent: 'ORDER_INTENT_BUY_LONG',
        type: 'ORDER_TYPE_MARKET',
        cashOrderQty: { value: '9.5', currency: 'USD' },
      }).notional,
    ).toBe(9.5);
  });
});
