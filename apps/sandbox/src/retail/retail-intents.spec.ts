import { enginePriceOf, engineSideOf, retailSideOf } from './retail-intents.js';
import type { OrderIntent } from './wire/retail-enums.wire.js';

describe('retail intents on the YES book', () => {
  it.each<[OrderIntent, string, number, string]>([
    ['ORDER_INTENT_BUY_LONG', 'SIDE_BUY', 40, 'ORDER_SIDE_BUY'],
    ['ORDER_INTENT_SELL_LONG', 'SIDE_SELL', 40, 'ORDER_SIDE_SELL'],
    ['ORDER_INTENT_BUY_SHORT', 'SIDE_SELL', 60, 'ORDER_SIDE_BUY'],
    ['ORDER_INTENT_SELL_SHORT', 'SIDE_BUY', 60, 'ORDER_SIDE_SELL'],
  ])('%s at 0.40 trades as %s at %d cents', (intent, side, px, retailSide) => {
    expect(engineSideOf(intent)).toBe(side);
    expect(enginePriceOf(intent, 40, 100)).toBe(px);
    expect(retailSideOf(intent)).toBe(retailSide);
  });

  it('leaves "no price" alone', () => {
    expect(enginePriceOf('ORDER_INTENT_BUY_SHORT', 0, 100)).toBe(0);
  });
});
