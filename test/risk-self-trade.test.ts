import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const TRADER = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'alice-bot', team: 'platform', scopes: TRADER, participants: [PARTICIPANT] },
  { id: 'bob-bot', team: 'trading', scopes: TRADER, participants: [OTHER_PARTICIPANT] },
];
const policy =
  (crossTeamSelfTrade: 'off' | 'reject') =>
  (config: GatewayConfigInput): GatewayConfigInput => ({ ...config, risk: { crossTeamSelfTrade } });

/** Bob rests an offer at 50 through the gateway; answers its order id. */
async function bobOffers(stack: Stack, clordId = 'bob-ask'): Promise<string> {
  const res = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_SELL', 5, 50, { clordId }), 'bob-bot');
  expect(res.status).toBe(200);
  return (await json(res)).orderId;
}

describe('cross-team self-trade prevention, a firm policy', () => {
  let on: Stack;
  let off: Stack;

  beforeAll(async () => {
    [on, off] = await Promise.all([
      startExchangeStack(CLIENTS, { gateway: policy('reject') }),
      startExchangeStack(CLIENTS, { gateway: policy('off') }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
  });

  it("with the policy on, refuses alice's order that would cross bob's resting order, and sends no insert", async () => {
    const bobOrder = await bobOffers(on);
    // Another firm's cheaper offer: crossing it alone is an ordinary trade.
    on.sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 48,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: COUNTERPARTY,
      clordId: 'carol-48',
    });
    const inserts = () => on.sandbox.state.counterSnapshot()['exchange.calls.insertOrder'] ?? 0;
    const before = inserts();
    const res = await post(
      on,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 5, 50, { clordId: 'alice-cross' }),
      'alice-bot',
    );
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({
      code: 'RISK_CROSS_TEAM_SELF_TRADE',
      policy: 'reject',
      symbol: SYMBOL,
      restingPrice: 50,
      order: 'body',
    });
    expect(inserts()).toBe(before);
    expect(on.sandbox.state.engine.order(bobOrder)).toMatchObject({ cumQty: 0 });
    // Only carol's offer is crossed at 48: accepted and traded; a resting bid under bob's offer too.
    const carol = await post(
      on,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 48, { clordId: 'alice-carol' }),
      'alice-bot',
    );
    expect(carol.status).toBe(200);
    expect(on.sandbox.state.engine.order((await json(carol)).orderId)).toMatchObject({ cumQty: 1 });
    expect(
      (await post(on, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 45, { clordId: 'alice-rest' }), 'alice-bot'))
        .status,
    ).toBe(200);
    // A batch child that would cross is refused by its path.
    const batch = await post(
      on,
      '/exchange/v1/trading/orders/list',
      { requests: [limit('SIDE_BUY', 1, 44, { clordId: 'b0' }), limit('SIDE_BUY', 1, 55, { clordId: 'b1' })] },
      'alice-bot',
    );
    expect(await json(batch)).toMatchObject({ code: 'RISK_CROSS_TEAM_SELF_TRADE', order: 'body.requests.1' });
    // Bob's own cancel is never refused.
    expect((await post(on, '/exchange/v1/trading/orders/cancel', { orderId: bobOrder }, 'bob-bot')).status).toBe(200);
  });

  it("with the policy on, refuses alice's replace that reprices her resting bid across bob's offer (judged as an insert at the new price), nothing sent", async () => {
    const bobOrder = await bobOffers(on, 'bob-ask-2');
    const rested = await post(
      on,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 2, 40, { clordId: 'alice-low' }),
      'alice-bot',
    );
    expect(rested.status).toBe(200);
    const aliceOrder = (await json(rested)).orderId as string;
    const replaces = () => on.sandbox.state.counterSnapshot()['exchange.calls.replaceBatch'] ?? 0;
    const replace = (price: string) =>
      post(on, '/exchange/v1/trading/orders/replace/list', { requests: [{ orderId: aliceOrder, price }] }, 'alice-bot');

    const before = replaces();
    const cross = await replace('50');
    expect(cross.status).toBe(422);
    expect(await json(cross)).toMatchObject({
      code: 'RISK_CROSS_TEAM_SELF_TRADE',
      symbol: SYMBOL,
      restingPrice: 50,
      order: 'body.requests.0',
    });
    expect(replaces()).toBe(before);
    expect(on.sandbox.state.engine.order(bobOrder)).toMatchObject({ cumQty: 0 });
    expect(on.sandbox.state.engine.order(aliceOrder)).toMatchObject({ price: 40 });
    // Still under bob's offer: replaced.
    const under = await replace('45');
    expect(under.status).toBe(200);
    expect(on.sandbox.state.engine.order(aliceOrder)).toMatchObject({ price: 45 });
    // A replace of an order the gateway does not know cannot be judged: refused while the policy is on.
    expect(
      await json(
        await post(
          on,
          '/exchange/v1/trading/orders/replace/list',
          { requests: [{ orderId: 'unknown-1', price: '50' }] },
          'alice-bot',
        ),
      ),
    ).toMatchObject({
      code: 'RISK_MARKET_UNKNOWN',
      orderId: 'unknown-1',
    });
    expect(replaces()).toBe(before + 1);
    for (const [id, client] of [
      [bobOrder, 'bob-bot'],
      [aliceOrder, 'alice-bot'],
    ] as const)
      expect((await post(on, '/exchange/v1/trading/orders/cancel', { orderId: id }, client)).status).toBe(200);
  });

  it('with the policy off, the same order trades with bob', async () => {
    const bobOrder = await bobOffers(off);
    const res = await post(
      off,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 5, 50, { clordId: 'alice-cross' }),
      'alice-bot',
    );
    expect(res.status).toBe(200);
    expect(off.sandbox.state.engine.order(bobOrder)).toMatchObject({ cumQty: 5 });
  });
});
