import type { JournalRecord } from '@lib/journal';

import { mayBeSent, sentTermsOf } from './insert-terms.js';

const received = (seq: number, clordId: string, body: unknown): JournalRecord => ({
  kind: 'received',
  seq,
  at: '2026-11-29T12:00:00.000Z',
  hash: 'h',
  clordId,
  data: { body },
});

const limit = { symbol: 'ABC', side: 'SIDE_BUY', type: 'ORDER_TYPE_LIMIT', orderQty: '1', price: '12' };

describe('sentTermsOf', () => {
  it('takes the first record of each clordId: an insert body, a batch item, a one-item batch', () => {
    const sent = sentTermsOf([
      received(1, 'a', { ...limit, clordId: 'a' }),
      received(2, 'a', { ...limit, clordId: 'a', price: '99' }),
      received(3, 'b', { ...limit, clordId: 'b', price: '13' }),
      received(4, 'c', { requests: [{ ...limit, price: '14' }] }),
    ]);
    expect([sent.get('a')?.price, sent.get('b')?.price, sent.get('c')?.price]).toEqual(['12', '13', '14']);
  });

  it('leaves out a record without a body', () => {
    expect(sentTermsOf([received(1, 'a', undefined)]).has('a')).toBe(false);
  });
});

describe('mayBeSent', () => {
  it('matches the terms an order shows back, numbers by value', () => {
    expect(mayBeSent({ ...limit, price: 12, orderQty: 1, state: 'ORDER_STATE_NEW' }, limit)).toBe(true);
    expect(mayBeSent({ ...limit, price: '12.0' }, limit)).toBe(true);
  });

  it('refuses an order with another price, side, symbol or quantity', () => {
    expect(mayBeSent({ ...limit, price: 13 }, limit)).toBe(false);
    expect(mayBeSent({ ...limit, side: 'SIDE_SELL' }, limit)).toBe(false);
    expect(mayBeSent({ ...limit, symbol: 'XYZ' }, limit)).toBe(false);
    expect(mayBeSent({ ...limit, orderQty: 2 }, limit)).toBe(false);
  });

  it('compares no term either side leaves out (0 is none on the wire), and unknown terms match any order', () => {
    expect(mayBeSent({ symbol: 'ABC', side: 'SIDE_BUY', price: 12, stopPrice: 0 }, { ...limit, stopPrice: '0' })).toBe(
      true,
    );
    expect(mayBeSent({ ...limit, timeInForce: 'TIME_IN_FORCE_DAY' }, limit)).toBe(true);
    expect(mayBeSent(undefined, limit)).toBe(true);
    expect(mayBeSent({ ...limit, price: 13 }, undefined)).toBe(true);
  });

  it('compares no term the exchange sets itself: the price of a market-to-limit, the size and time in force of a cash order', () => {
    const mtl = { symbol: 'ABC', side: 'SIDE_BUY', type: 'ORDER_TYPE_MARKET_TO_LIMIT', orderQty: '2', price: '60' };
    expect(mayBeSent({ ...mtl, price: 55 }, mtl)).toBe(true);
    expect(mayBeSent({ ...mtl, type: 'ORDER_TYPE_LIMIT', price: 55 }, mtl)).toBe(true);
    expect(mayBeSent({ ...mtl, orderQty: 3 }, mtl)).toBe(false);
    const cash = { ...mtl, orderQty: undefined, cashOrderQty: '56', timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL' };
    expect(mayBeSent({ ...cash, orderQty: 1, timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' }, cash)).toBe(true);
    expect(mayBeSent({ ...cash, side: 'SIDE_SELL' }, cash)).toBe(false);
    // A limit's price is its own: another one is another order.
    expect(mayBeSent({ ...limit, type: 'ORDER_TYPE_LIMIT', price: 13 }, { ...limit, type: 'ORDER_TYPE_LIMIT' })).toBe(
      false,
    );
  });
});
