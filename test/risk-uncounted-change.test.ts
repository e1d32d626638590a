import { SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, RETAIL_KEYS, RETAIL_MARKET, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// A replace or a retail modify of an order that holds no share of the counts (one no client was given:
// sent outside the gateway, which the walls let the participant's clients change) is judged like any
// growth: its new terms as fresh exposure against maxOpenNotional, refused with nothing sent when over,
// and counted once it passes. Found by a probe: with maxOpenNotional $5 a client grew such a 1-lot at
// 10 cents to 1,000 ($100 open), and its next order passed too: the grown order was counted nowhere.

const W = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [{ id: 'bot', team: 'trading', scopes: W, participants: [PARTICIPANT], retailAccounts: ['main'] }];
const withLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'bot', maxOpenNotional: 5 }] },
});
const usd = (value: string) => ({ value, currency: 'USD' });
/** Long enough for the order stream (and the retail order channel) to show an order placed outside the gateway. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 3_000));

describe('a change that grows an order holding no share of the counts (Redis)', () => {
  let stack: Stack;
  const counter = (name: string) => stack.sandbox.state.counterSnapshot()[name] ?? 0;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { redis: true, gateway: withLimits });
  }, 90_000);
  afterAll(() => stack?.close());

  it('exchange batch replace: judged against maxOpenNotional as fresh exposure, then counted', async () => {
    const { engine } = stack.sandbox.state;
    expect((await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10), 'bot')).status).toBe(200);
    const { orderId } = engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      account: PARTICIPANT,
      orderQty: 1,
      price: 10,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    } as never) as { orderId: string };
    await settle();
    const replaces = counter('exchange.calls.replaceBatch');

    // 1,000 × $0.10 = $100 against $5: refused, nothing sent.
    const grown = await post(
      stack,
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ orderId, orderQty: '1000' }] },
      'bot',
    );
    expect(grown.status).toBe(422);
    expect(grown.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await json(grown)).toMatchObject({ code: 'RISK_OPEN_NOTIONAL', limit: 5 });
    expect(engine.order(orderId)).toMatchObject({ orderQty: 1 });
    expect(counter('exchange.calls.replaceBatch')).toBe(replaces);

    // 20 × $0.10 = $2 fits ($2.10 open), and counts from now on: 30 more at $0.10 ($5.10) are refused.
    const fits = await post(
      stack,
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ orderId, orderQty: '20' }] },
      'bot',
    );
    expect(fits.status).toBe(200);
    const next = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 30, 10), 'bot');
    expect(next.status).toBe(422);
    expect(await json(next)).toMatchObject({ code: 'RISK_OPEN_NOTIONAL', limit: 5 });
  }, 60_000);

  it('retail modify: the same', async () => {
    const { engine } = stack.sandbox.state;
    const bid = (quantity: number) => ({
      marketSlug: RETAIL_MARKET,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.10'),
      quantity,
    });
    expect((await post(stack, '/retail/v1/orders', bid(1), 'bot')).status).toBe(200);
    const { orderId } = engine.insert({
      symbol: RETAIL_MARKET,
      side: 'SIDE_BUY',
      account: RETAIL_KEYS.main,
      orderQty: 1,
      price: 10,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      clordId: 'outside-retail-1',
    } as never) as { orderId: string };
    await settle();
    const modifies = counter('retail.route.modifyOrder');
    const modify = (quantity: number) =>
      post(stack, `/retail/v1/order/${orderId}/modify`, { marketSlug: RETAIL_MARKET, quantity }, 'bot');

    const grown = await modify(1000);
    expect(grown.status).toBe(422);
    expect(grown.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await json(grown)).toMatchObject({ code: 'RISK_OPEN_NOTIONAL', limit: 5 });
    expect(engine.order(orderId)).toMatchObject({ orderQty: 1 });
    expect(counter('retail.route.modifyOrder')).toBe(modifies);

    // 20 × $0.10 fits, and counts from now on.
    expect((await modify(20)).status).toBe(200);
    const next = await post(stack, '/retail/v1/orders', bid(30), 'bot');
    expect(next.status).toBe(422);
    expect(await json(next)).toMatchObject({ code: 'RISK_OPEN_NOTIONAL', limit: 5 });
  }, 60_000);
});
