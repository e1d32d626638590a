import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// Cross-team self-trade prevention judged a STOP that carries a price at that price (found by a probe). The
// exchange takes no price from a stop: once triggered it trades as a market-to-limit. A STOP buy of 5 with
// `price: "1"` passed where the same stop without a price was refused, and when a trade fired it, it bought
// another team's whole offer. Now a stop is judged as having no price, with one or without.

const TRADER = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'alice-bot', team: 'platform', scopes: TRADER, participants: [PARTICIPANT] },
  { id: 'bob-bot', team: 'trading', scopes: TRADER, participants: [OTHER_PARTICIPANT] },
];

describe('cross-team self-trade prevention and a STOP order that carries a price', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, {
      gateway: (config: GatewayConfigInput): GatewayConfigInput => ({
        ...config,
        risk: { crossTeamSelfTrade: 'reject' },
      }),
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('a STOP buy that will trade as market-to-limit is judged as priceless, as without a price', async () => {
    const bob = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_SELL', 5, 50, { clordId: 'bob-ask' }),
      'bob-bot',
    );
    expect(bob.status).toBe(200);
    const bobOrder = (await json(bob)).orderId as string;
    stack.sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 48,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: COUNTERPARTY,
      clordId: 'carol-48',
    });
    const stop = (extra: object) => ({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      type: 'ORDER_TYPE_STOP',
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      orderQty: '5',
      stopPrice: '48',
      ...extra,
    });
    // Control: the same stop with no price is refused (a market order crosses bob's offer).
    const bare = await post(stack, '/exchange/v1/trading/orders', stop({ clordId: 'alice-stop-bare' }), 'alice-bot');
    expect(bare.status).toBe(422);
    expect(await json(bare)).toMatchObject({ code: 'RISK_CROSS_TEAM_SELF_TRADE' });
    // With a price the exchange ignores for a STOP (spec 2.2), the same order passes.
    const priced = await post(
      stack,
      '/exchange/v1/trading/orders',
      stop({ clordId: 'alice-stop-priced', price: '1' }),
      'alice-bot',
    );
    const pricedBody = await json(priced);
    // Alice's ordinary buy from carol at 48 (no cross with bob) triggers the stop.
    const trigger = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 48, { clordId: 'alice-carol' }),
      'alice-bot',
    );
    expect(trigger.status).toBe(200);
    const bobAfter = stack.sandbox.state.engine.order(bobOrder);
    expect(bobAfter).toMatchObject({ cumQty: 0 });
    expect(priced.status).toBe(422);
    expect(pricedBody).toMatchObject({ code: 'RISK_CROSS_TEAM_SELF_TRADE' });
  });
});
