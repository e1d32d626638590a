import type { MarketDataUpdateMessage, OrderRequest } from '@lib/exchange';

import { executionPrices, isAggressive, referenceOf, wouldExecute } from './price-band.js';

const book = (bids: number[], offers: number[], lastTradePx = '0'): MarketDataUpdateMessage =>
  ({
    symbol: 's',
    bids: bids.map((px) => ({ px: String(px), qty: '10' })),
    offers: offers.map((px) => ({ px: String(px), qty: '10' })),
    stats: { lastTradePx },
    priceScale: 2,
  }) as unknown as MarketDataUpdateMessage;
const order = (side: 'SIDE_BUY' | 'SIDE_SELL', price?: string, type: OrderRequest['type'] = 'ORDER_TYPE_LIMIT') =>
  ({ symbol: 's', side, type, orderQty: '1', price }) as OrderRequest;

describe('price band reference and aggression', () => {
  it('takes the mid when the spread is tight, else the last trade, else none; ages by when the book was heard', () => {
    expect(referenceOf({ update: book([40], [44]), receivedAt: 1_000 }, { tightSpread: 0.05 }, 1_500)).toEqual({
      price: 0.42,
      source: 'mid',
      ageMs: 500,
    });
    expect(referenceOf({ update: book([30], [60], '51'), receivedAt: 0 }, { tightSpread: 0.05 }, 0)).toEqual({
      price: 0.51,
      source: 'last-trade',
      ageMs: 0,
    });
    expect(referenceOf({ update: book([], [60]), receivedAt: 0 }, { tightSpread: 0.05 }, 0)).toBeUndefined();
  });

  it('a limit crossing the touch, a market order, or any order with no live book is aggressive; a stop rests', () => {
    const seen = { update: book([40], [44]), receivedAt: 0 };
    expect(isAggressive(order('SIDE_BUY', '44'), seen, 2)).toBe(true);
    expect(isAggressive(order('SIDE_BUY', '43'), seen, 2)).toBe(false);
    expect(isAggressive(order('SIDE_SELL', '40'), seen, 2)).toBe(true);
    expect(isAggressive(order('SIDE_SELL', '41'), seen, 2)).toBe(false);
    expect(isAggressive(order('SIDE_BUY', undefined, 'ORDER_TYPE_MARKET_TO_LIMIT'), seen, 2)).toBe(true);
    expect(isAggressive(order('SIDE_BUY', '10'), undefined, 2)).toBe(true);
    expect(isAggressive(order('SIDE_BUY', '90', 'ORDER_TYPE_STOP'), seen, 2)).toBe(false);
  });

  it('judges any surface in dollars: an unknown side is aggressive and takes both touches; a limit its own price', () => {
    const quote = { bid: 0.4, ask: 0.44, receivedAt: 0 };
    expect(wouldExecute({ side: 'either', kind: 'market' }, quote)).toBe(true);
    expect(executionPrices({ side: 'either', kind: 'market' }, quote)).toEqual([0.4, 0.44]);
    expect(executionPrices({ side: 'sell', kind: 'market' }, { bid: 0.4, receivedAt: 0 })).toEqual([0.4]);
    expect(executionPrices({ side: 'buy', kind: 'market' }, { bid: 0.4, receivedAt: 0 })).toEqual([]);
    expect(wouldExecute({ side: 'sell', kind: 'limit', price: 0.3 }, quote)).toBe(true);
    expect(wouldExecute({ side: 'sell', kind: 'limit', price: 0.41 }, quote)).toBe(false);
    expect(wouldExecute({ side: 'buy', kind: 'limit', price: 0.2 }, undefined)).toBe(true);
    expect(executionPrices({ side: 'sell', kind: 'limit', price: 0.3 }, quote)).toEqual([0.3]);
  });
});
