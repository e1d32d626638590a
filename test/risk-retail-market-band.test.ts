import { COUNTERPARTY, SYMBOL, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json, withGhostAccount } from './support/stack.js';
import { RetailPositionBook } from '../apps/gateway/src/risk/retail-position-book.service.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/** The self-trade case's market, which no other case here touches. */
const SLUG = 'aec-nfl-gb-chi-2026-11-22';
const TRADER = ['write:orders' as const, 'read:orders' as const];
const usd = (value: string) => ({ value, currency: 'USD' });
const market = (intent: string, quantity: number, extra: object = {}) => ({
  marketSlug: SYMBOL,
  intent: `ORDER_INTENT_${intent}`,
  type: 'ORDER_TYPE_MARKET',
  quantity,
  ...extra,
});
const limitOrder = (intent: string, quantity: number, price: string, marketSlug = SYMBOL) => ({
  marketSlug,
  intent: `ORDER_INTENT_${intent}`,
  type: 'ORDER_TYPE_LIMIT',
  price: usd(price),
  quantity,
});

/** What the sandbox's retail surface served, per route (`retail.route.<name>`): what the gateway sent. */
const served = (stack: Stack, route: string) => stack.sandbox.state.counterSnapshot()[`retail.route.${route}`] ?? 0;

let rested = 0;

/** Another firm rests an order straight on the engine (the sandbox's one book per market); answers its order id. */
function rest(stack: Stack, side: 'SIDE_BUY' | 'SIDE_SELL', price: number, orderQty: number, symbol = SYMBOL) {
  return stack.sandbox.state.engine.insert({
    symbol,
    side,
    orderQty,
    price,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: COUNTERPARTY,
    clordId: `carol-${++rested}`,
  }).orderId;
}

/** Until this gateway's view of the account's position (its position channel) shows `net` contracts in the market. */
function positionSeen(stack: Stack, account: string, slug: string, net: number) {
  const book = stack.gateway.get(RetailPositionBook);
  return eventually(
    () => book.net(account, slug, 0),
    (seen) => seen === net,
  );
}

describe('retail market orders bounded by the price band (slippage tolerance)', () => {
  let stack: Stack;
  const ladder: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startExchangeStack(
      [
        { id: 'bot', team: 'trading', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['main'] },
        { id: 'bob', team: 'platform', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['hedge'] },
      ],
      {
        gateway: (config: GatewayConfigInput) => ({
          ...config,
          risk: { limits: [{ scope: 'team', id: 'trading', priceBand: 0.05 }] },
        }),
      },
    );
    // Another firm quotes 40 / 44 (the reference: the mid, 0.42; the band 0.37–0.47), with a deep ladder of offers behind.
    rest(stack, 'SIDE_BUY', 40, 10);
    rest(stack, 'SIDE_SELL', 44, 10);
    ladder.edge = rest(stack, 'SIDE_SELL', 47, 5);
    ladder.past = rest(stack, 'SIDE_SELL', 48, 10);
    ladder.far = rest(stack, 'SIDE_SELL', 55, 50);
  });
  afterAll(() => stack?.close());

  it('sends a market buy without a tolerance with one at the band edge, journals it as sent, and it does not execute past the edge', async () => {
    const order = market('BUY_LONG', 20);
    const whatIf = await json(await post(stack, '/retail/v1/order/check', order, 'bot'));
    expect(whatIf).toMatchObject({
      accepted: true,
      order: { slippageTolerance: { currentPrice: usd('0.42'), ticks: 5 } },
    });

    const from = new Date(Date.now() - 1_000).toISOString();
    const res = await post(stack, '/retail/v1/orders', order, 'bot');
    expect(res.status).toBe(200);
    const { id } = await json(res);
    const { engine } = stack.sandbox.state;
    // 10 at 0.44 and 5 at 0.47 (the edge); the offers at 0.48 and 0.55 are untouched, the rest cancelled.
    expect(engine.order(ladder.past!)).toMatchObject({ cumQty: 0 });
    expect(engine.order(ladder.far!)).toMatchObject({ cumQty: 0 });
    expect(engine.order(ladder.edge!)).toMatchObject({ cumQty: 5 });
    const filled = engine.order(id as string)!;
    expect({ cumQty: filled.cumQty, limit: filled.price }).toEqual({ cumQty: 15, limit: 47 });
    expect(filled.avgPx).toBeLessThanOrEqual(47);

    const to = new Date(Date.now() + 1_000).toISOString();
    const records = (await (await api(stack)(`/admin/journal/export?from=${from}&to=${to}`)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; data?: Record<string, unknown> });
    const intent = records.find((r) => r.kind === 'received' && r.data?.operation === 'retail.create');
    expect(intent?.data?.body).not.toHaveProperty('slippageTolerance');
    expect(intent?.data?.sent).toMatchObject({ ...order, slippageTolerance: whatIf.order.slippageTolerance });
  });

  it('refuses a tolerance wider than the band, naming body.slippageTolerance, and sends nothing; one inside is sent as it is', async () => {
    // The offers the buy took are back at 0.44: the reference is the 0.42 mid again (seen once the what-if stamps it).
    rest(stack, 'SIDE_SELL', 44, 10);
    await eventually(
      () => post(stack, '/retail/v1/order/check', market('BUY_LONG', 1), 'bot').then(json),
      (answer) => answer.order?.slippageTolerance?.currentPrice?.value === '0.42',
    );
    const creates = served(stack, 'createOrder');
    const wide = await post(
      stack,
      '/retail/v1/orders',
      market('BUY_LONG', 5, { slippageTolerance: { currentPrice: usd('0.42'), ticks: 10 } }),
      'bot',
    );
    expect(wide.headers.get('content-type')).toContain('application/problem+json');
    expect([wide.status, await json(wide)]).toEqual([
      422,
      expect.objectContaining({
        code: 'RISK_PRICE_BAND',
        field: 'body.slippageTolerance',
        limit: 0.05,
        band: { low: 0.37, high: 0.47 },
        observed: 0.52,
        order: 'body',
      }),
    ]);
    // Buying NO with room to 0.68 sells YES down to 0.32: mirrored onto the long book.
    const short = await json(
      await post(
        stack,
        '/retail/v1/orders',
        market('BUY_SHORT', 5, { slippageTolerance: { currentPrice: usd('0.58'), ticks: 10 } }),
        'bot',
      ),
    );
    expect(short).toMatchObject({ code: 'RISK_PRICE_BAND', field: 'body.slippageTolerance', observed: 0.32 });
    expect(served(stack, 'createOrder')).toBe(creates);

    const inside = { currentPrice: usd('0.44'), ticks: 2 };
    const accepted = await json(
      await post(stack, '/retail/v1/order/check', market('BUY_LONG', 5, { slippageTolerance: inside }), 'bot'),
    );
    expect(accepted).toMatchObject({ accepted: true, order: { slippageTolerance: inside } });
    // A cash market buy (no quantity) is bounded the same way.
    const cash = {
      marketSlug: SYMBOL,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_MARKET',
      cashOrderQty: usd('5'),
    };
    expect(await json(await post(stack, '/retail/v1/order/check', cash, 'bot'))).toMatchObject({
      accepted: true,
      order: { ...cash, slippageTolerance: { currentPrice: usd('0.42'), ticks: 5 } },
    });
  });

  it('bounds a close-position at the band edge on the side it trades (a long sells), so it stops inside the band', async () => {
    const { engine } = stack.sandbox.state;
    await positionSeen(stack, 'main', SYMBOL, 15);
    // Bids inside the band: 10 at 0.40, another firm account's 3 at 0.38 (no self-trade policy here), 1 at 0.37; then 0.35.
    const bob = await post(stack, '/retail/v1/orders', limitOrder('BUY_LONG', 3, '0.38'), 'bob');
    expect(bob.status).toBe(200);
    const bobId = (await json(bob)).id as string;
    rest(stack, 'SIDE_BUY', 37, 1);
    const below = rest(stack, 'SIDE_BUY', 35, 50);

    const close = await post(stack, '/retail/v1/order/close-position', { marketSlug: SYMBOL }, 'bot');
    expect(close.status).toBe(200);
    const { id } = await json(close);
    expect(engine.order(below)).toMatchObject({ cumQty: 0 });
    expect(engine.order(bobId)).toMatchObject({ cumQty: 3 });
    const sold = engine.order(id as string)!;
    expect({ cumQty: sold.cumQty, limit: sold.price }).toEqual({ cumQty: 14, limit: 37 });
  });
});

describe('cross-team self-trade prevention on a retail close-position', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack(
      [
        { id: 'alice-app', team: 'platform', scopes: TRADER, retailAccounts: ['main'] },
        { id: 'bob-app', team: 'trading', scopes: TRADER, retailAccounts: ['hedge'] },
      ],
      { gateway: (config: GatewayConfigInput) => ({ ...config, risk: { crossTeamSelfTrade: 'reject' } }) },
    );
  });
  afterAll(() => stack?.close());

  it("refuses a close that would sell into another firm account's resting bid; lets a flat close, one bounded short of the bid, and an uncrossed one through", async () => {
    // Alice buys 5 YES from another firm: a long to close.
    rest(stack, 'SIDE_SELL', 50, 5, SLUG);
    expect((await post(stack, '/retail/v1/orders', limitOrder('BUY_LONG', 5, '0.50', SLUG), 'alice-app')).status).toBe(
      200,
    );
    await positionSeen(stack, 'main', SLUG, 5);
    // Bob (the firm's hedge account) bids 0.45 for YES: closing the long sells into it.
    const bid = await post(stack, '/retail/v1/orders', limitOrder('BUY_LONG', 2, '0.45', SLUG), 'bob-app');
    expect(bid.status).toBe(200);
    const bidId = (await json(bid)).id as string;

    const closes = served(stack, 'closePosition');
    const close = await post(stack, '/retail/v1/order/close-position', { marketSlug: SLUG }, 'alice-app');
    expect(close.headers.get('content-type')).toContain('application/problem+json');
    expect([close.status, await json(close)]).toEqual([
      422,
      expect.objectContaining({ code: 'RISK_CROSS_TEAM_SELF_TRADE', policy: 'reject', symbol: SLUG, order: 'body' }),
    ]);
    expect(served(stack, 'closePosition')).toBe(closes);
    expect(stack.sandbox.state.engine.order(bidId)).toMatchObject({ cumQty: 0 });

    // A close bounded by its tolerance above bob's bid (4 % of 0.50: it sells no lower than 0.48) cannot reach it: sent.
    const bounded = { marketSlug: SLUG, slippageTolerance: { currentPrice: usd('0.50'), bips: 400 } };
    expect((await post(stack, '/retail/v1/order/close-position', bounded, 'alice-app')).status).toBe(200);
    expect(served(stack, 'closePosition')).toBe(closes + 1);

    // Bob is flat here: nothing to close, so no self-trade; the upstream answers it.
    await post(stack, '/retail/v1/order/close-position', { marketSlug: SLUG }, 'bob-app');
    expect(served(stack, 'closePosition')).toBe(closes + 2);

    // Once bob's bid is gone, alice's close is sent.
    expect((await post(stack, `/retail/v1/order/${bidId}/cancel`, { marketSlug: SLUG }, 'bob-app')).status).toBe(200);
    await eventually(
      () => post(stack, '/retail/v1/order/close-position', { marketSlug: SLUG }, 'alice-app').then((r) => r.status),
      (status) => status === 200,
    );
    expect(served(stack, 'closePosition')).toBeGreaterThanOrEqual(closes + 3);
    expect(stack.sandbox.state.engine.order(bidId)).toMatchObject({ cumQty: 0 });
  });
});

describe('a retail close-position whose side is not known, with the self-trade policy on', () => {
  let stack: Stack;

  beforeAll(async () => {
    // A retail account the venue does not know (its key id is refused): its position channel never delivers.
    stack = await startExchangeStack(
      [{ id: 'ghost-app', team: 'platform', scopes: TRADER, retailAccounts: ['ghost'] }],
      {
        gateway: (config: GatewayConfigInput) => ({
          ...withGhostAccount(config),
          risk: { crossTeamSelfTrade: 'reject' },
        }),
      },
    );
  });
  afterAll(() => stack?.close());

  it('refuses it 503 RISK_POSITION_UNKNOWN (fail closed), nothing sent', async () => {
    const closes = served(stack, 'closePosition');
    const res = await post(stack, '/retail/v1/order/close-position', { marketSlug: SLUG }, 'ghost-app');
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
    expect(await json(res)).toMatchObject({ code: 'RISK_POSITION_UNKNOWN', order: 'body' });
    expect(served(stack, 'closePosition')).toBe(closes);
  });
});
