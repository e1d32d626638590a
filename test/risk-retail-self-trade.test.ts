import { SYMBOL, limit } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const SLUG = 'aec-nfl-gb-chi-2026-11-22';
const OTHER_SLUG = 'aec-nfl-bal-pit-2026-11-22';
const MODIFY_SLUG = 'aec-nfl-dal-phi-2026-11-22';
/** The sandbox's key id of the `hedge` retail account: an engine account of its own. */
const HEDGE_KEY = '8a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const TRADER = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'alice-app', team: 'platform', scopes: TRADER, retailAccounts: ['main'] },
  { id: 'bob-app', team: 'trading', scopes: TRADER, retailAccounts: ['hedge'] },
  { id: 'ex-bot', team: 'exchange', scopes: TRADER, participants: [PARTICIPANT] },
];
const reject = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { crossTeamSelfTrade: 'reject' },
});

const usd = (value: string) => ({ value, currency: 'USD' });
const order = (intent: string, quantity: number, price: string, marketSlug: string = SLUG) => ({
  marketSlug,
  intent,
  price: usd(price),
  quantity,
});

describe('cross-team self-trade prevention on the retail surface', () => {
  let stack: Stack;
  const creates = () => stack.sandbox.state.counterSnapshot()['retail.route.createOrder'] ?? 0;
  const post = (client: string, path: string, body: unknown) =>
    api(stack, client)(path, { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    stack = await startStack({
      clients: CLIENTS,
      gateway: (config) => reject({ ...config, teams: [...(config.teams ?? []), { id: 'exchange' }] }),
    });
  });
  afterAll(() => stack?.close());

  it("refuses a retail create that would cross another firm account's resting order, and sends nothing", async () => {
    // Bob buys NO at 0.50: on the market's one book, a YES offer at 0.50.
    const bob = await post('bob-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_SHORT', 5, '0.50'));
    expect(bob.status).toBe(200);
    const bobId = (await json(bob)).id as string;

    const before = creates();
    const cross = await post('alice-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_LONG', 5, '0.50'));
    expect(cross.headers.get('content-type')).toContain('application/problem+json');
    expect(cross.status).toBe(422);
    expect(await json(cross)).toMatchObject({
      code: 'RISK_CROSS_TEAM_SELF_TRADE',
      policy: 'reject',
      symbol: SLUG,
      restingPrice: 0.5,
      order: 'body',
    });
    // Selling NO at 0.50 buys YES at 0.50: the same cross, by the mirrored price.
    const mirrored = await post('alice-app', '/retail/v1/orders', order('ORDER_INTENT_SELL_SHORT', 2, '0.50'));
    expect((await json(mirrored)).code).toBe('RISK_CROSS_TEAM_SELF_TRADE');
    expect(creates()).toBe(before);
    expect(stack.sandbox.state.engine.order(bobId)).toMatchObject({ cumQty: 0 });

    // A bid under bob's offer rests: not refused.
    expect((await post('alice-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_LONG', 1, '0.48'))).status).toBe(200);

    // An order of the hedge account placed outside the gateway is learnt from its order channel.
    stack.sandbox.state.engine.insert({
      symbol: OTHER_SLUG,
      side: 'SIDE_SELL',
      orderQty: 3,
      price: 55,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: HEDGE_KEY,
      clordId: 'hedge-direct',
    });
    const aliceLift = order('ORDER_INTENT_BUY_LONG', 1, '0.56', OTHER_SLUG);
    await eventually(
      () => post('alice-app', '/retail/v1/order/check', aliceLift).then((res) => res.status),
      (status) => status === 422,
    );
    const lift = await post('alice-app', '/retail/v1/orders', aliceLift);
    expect(await json(lift)).toMatchObject({ code: 'RISK_CROSS_TEAM_SELF_TRADE', symbol: OTHER_SLUG });
    expect(creates()).toBe(before + 1);

    // Bob's cancel is never refused; once his order is gone, alice's order trades as any other.
    expect((await post('bob-app', `/retail/v1/order/${bobId}/cancel`, { marketSlug: SLUG })).status).toBe(200);
    await eventually(
      () =>
        post('alice-app', '/retail/v1/order/check', order('ORDER_INTENT_BUY_LONG', 5, '0.50')).then((r) => r.status),
      (status) => status === 200,
    );
    expect((await post('alice-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_LONG', 5, '0.50'))).status).toBe(200);
  });

  it("refuses a retail modify that reprices an order across another firm account's resting order (judged as a create at the new price), nothing sent", async () => {
    const modifies = () => stack.sandbox.state.counterSnapshot()['retail.route.modifyOrder'] ?? 0;
    // Bob offers YES at 0.70 (buys NO at 0.30) on a market no other case uses; alice bids 0.65 under it.
    const bob = await post('bob-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_SHORT', 2, '0.30', MODIFY_SLUG));
    expect(bob.status).toBe(200);
    const alice = await post('alice-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_LONG', 1, '0.65', MODIFY_SLUG));
    expect(alice.status).toBe(200);
    const aliceId = (await json(alice)).id as string;
    const modify = (price: string) =>
      post('alice-app', `/retail/v1/order/${aliceId}/modify`, { marketSlug: MODIFY_SLUG, price: usd(price) });

    const before = modifies();
    const cross = await modify('0.70');
    expect(cross.status).toBe(422);
    expect(await json(cross)).toMatchObject({ code: 'RISK_CROSS_TEAM_SELF_TRADE', symbol: MODIFY_SLUG, order: 'body' });
    expect(modifies()).toBe(before);
    expect((await modify('0.66')).status).toBe(200);
    expect(modifies()).toBe(before + 1);
  });

  it("judges a retail create against the firm's exchange participants' resting orders, and an exchange order against its retail accounts' (one book per market)", async () => {
    const inserts = () => stack.sandbox.state.counterSnapshot()['exchange.calls.insertOrder'] ?? 0;
    // The exchange participant offers YES at 0.60 on the market the retail surface calls SYMBOL too.
    const offer = await post(
      'ex-bot',
      '/exchange/v1/trading/orders',
      limit('SIDE_SELL', 2, 60, { clordId: 'ex-offer' }),
    );
    expect(offer.status).toBe(200);
    const before = creates();
    const lift = await post('alice-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_LONG', 1, '0.60', SYMBOL));
    expect(lift.status).toBe(422);
    expect(await json(lift)).toMatchObject({ code: 'RISK_CROSS_TEAM_SELF_TRADE', symbol: SYMBOL, order: 'body' });
    expect(creates()).toBe(before);

    // Bob buys NO at 0.45 (a YES offer at 0.55): the exchange participant's bid at 0.56 would trade with it.
    expect(
      (await post('bob-app', '/retail/v1/orders', order('ORDER_INTENT_BUY_SHORT', 1, '0.45', SYMBOL))).status,
    ).toBe(200);
    const sent = inserts();
    const bid = await post('ex-bot', '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 56, { clordId: 'ex-bid' }));
    expect(bid.status).toBe(422);
    expect(await json(bid)).toMatchObject({ code: 'RISK_CROSS_TEAM_SELF_TRADE', symbol: SYMBOL, restingPrice: 0.45 });
    expect(inserts()).toBe(sent);
  });
});
