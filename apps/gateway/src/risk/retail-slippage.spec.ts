import type { OrderIntent } from '@lib/retail';

import { slippageWorst, toleranceAtEdge } from './retail-slippage.js';

const usd = (value: string) => ({ value, currency: 'USD' as const });
const INTENTS: OrderIntent[] = [
  'ORDER_INTENT_BUY_LONG',
  'ORDER_INTENT_SELL_LONG',
  'ORDER_INTENT_BUY_SHORT',
  'ORDER_INTENT_SELL_SHORT',
];

describe('retail slippage tolerance: the worst price, and the tolerance at the band edge', () => {
  it('computes the worst long-book price as the exchange does: room from ticks and bips, rounded towards current', () => {
    expect(slippageWorst('ORDER_INTENT_BUY_LONG', { currentPrice: usd('0.50'), ticks: 2 }, 0.01)).toEqual({
      price: 0.52,
    });
    // 0.495 rounded towards current (up, for a sell) is 0.50.
    expect(slippageWorst('ORDER_INTENT_SELL_LONG', { currentPrice: usd('0.50'), bips: 100 }, 0.01)).toEqual({
      price: 0.5,
    });
    // Buying NO up to 0.35 sells YES down to 0.65.
    expect(slippageWorst('ORDER_INTENT_BUY_SHORT', { currentPrice: usd('0.30'), ticks: 5 }, 0.01)).toEqual({
      price: 0.65,
    });
    // Kept inside (tick, 1 − tick).
    expect(slippageWorst('ORDER_INTENT_BUY_LONG', { currentPrice: usd('0.95'), ticks: 20 }, 0.01)).toEqual({
      price: 0.99,
    });
  });

  it('without a known tick: bips unrounded (never better than the rounded price), ticks taken at the bound', () => {
    expect(slippageWorst('ORDER_INTENT_BUY_LONG', { currentPrice: usd('0.50'), bips: 100 })).toEqual({
      price: 0.505,
    });
    expect(slippageWorst('ORDER_INTENT_BUY_LONG', { currentPrice: usd('0.50'), ticks: 1 })).toEqual({
      price: 1,
      tickUnknown: true,
    });
    expect(slippageWorst('ORDER_INTENT_SELL_SHORT', { currentPrice: usd('0.50'), ticks: 1 })).toEqual({
      price: 1,
      tickUnknown: true,
    });
  });

  it('stamps the band edge on the side the intent trades: in ticks when known, else in bips, never past the edge', () => {
    expect(toleranceAtEdge('ORDER_INTENT_BUY_LONG', 0.42, 0.05, 0.01)).toEqual({
      currentPrice: usd('0.42'),
      ticks: 5,
    });
    expect(toleranceAtEdge('ORDER_INTENT_BUY_LONG', 0.42, 0.05)).toEqual({ currentPrice: usd('0.42'), bips: 1190 });
    // A short intent's prices are NO prices: the reference mirrored.
    expect(toleranceAtEdge('ORDER_INTENT_SELL_SHORT', 0.425, 0.05, 0.01)).toEqual({
      currentPrice: usd('0.575'),
      ticks: 5,
    });
    for (const intent of INTENTS)
      for (const [reference, band, tick] of [
        [0.42, 0.05, 0.01],
        [0.425, 0.05, undefined],
        [0.07, 0.1, 0.01],
        [0.93, 0.03, undefined],
      ] as const) {
        const edge = toleranceAtEdge(intent, reference, band, tick)!;
        const { price } = slippageWorst(intent, edge, tick);
        const buysYes = intent === 'ORDER_INTENT_BUY_LONG' || intent === 'ORDER_INTENT_SELL_SHORT';
        expect([intent, reference, price <= reference + band + 1e-9, price >= reference - band - 1e-9]).toEqual([
          intent,
          reference,
          true,
          true,
        ]);
        // On the adverse side of the reference (or at it, when the band is under a tick).
        expect(buysYes ? price >= reference - 0.01 : price <= reference + 0.01).toBe(true);
      }
  });
});
