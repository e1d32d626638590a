import { COUNTERPARTY } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const SLUG = 'aec-nfl-bal-pit-2026-11-22';
const MAX_POSITION = 10;
/** The sandbox's key id of the `main` retail account (an engine account of its own). */
const MAIN_KEY = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';
const CLIENTS = [
  {
    id: 'pos-app',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    retailAccounts: ['main'],
  },
];
const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'pos-app', market: SLUG, maxNetPosition: MAX_POSITION }] },
});

/** The `main` account buys 6 YES straight on the engine (outside the gateway): only its position channel can tell. */
function buyYesOutside(stack: Stack, tag: string): void {
  const engine = stack.sandbox.state.engine;
  engine.insert({
    symbol: SLUG,
    side: 'SIDE_SELL',
    orderQty: 6,
    price: 40,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: COUNTERPARTY,
    clordId: `offer-${tag}`,
  });
  engine.insert({
    symbol: SLUG,
    side: 'SIDE_BUY',
    orderQty: 6,
    price: 40,
    timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
    account: MAIN_KEY,
    clordId: `lift-${tag}`,
  });
}

const order = (intent: string, quantity: number, price: string) => ({
  marketSlug: SLUG,
  intent,
  price: { value: price, currency: 'USD' },
  quantity,
});

describe('max net position on retail creates, from the retail position channel the gateway holds', () => {
  let stack: Stack;
  const creates = () => stack.sandbox.state.counterSnapshot()['retail.route.createOrder'] ?? 0;
  const post = (path: string, body: unknown) =>
    api(stack, 'pos-app')(path, { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    stack = await startStack({ clients: CLIENTS, gateway: withLimit });
  });
  afterAll(() => stack?.close());

  it('counts the position plus same-side open quantity plus the order, and lets a reducing order through', async () => {
    // The account buys 6 YES outside the gateway: only its position channel can tell.
    buyYesOutside(stack, 'a');
    const tooMany = order('ORDER_INTENT_BUY_LONG', 5, '0.30');
    await eventually(
      () => post('/retail/v1/order/check', tooMany).then((res) => res.status),
      (status) => status === 422,
    );
    const before = creates();
    const refused = await post('/retail/v1/orders', tooMany);
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({
      code: 'RISK_POSITION_LIMIT',
      limit: MAX_POSITION,
      observed: 11,
      scope: 'client:pos-app',
      market: SLUG,
    });
    expect(creates()).toBe(before);
    // Up to the limit: accepted and resting; then its open quantity counts too.
    expect((await post('/retail/v1/orders', order('ORDER_INTENT_BUY_LONG', 4, '0.30'))).status).toBe(200);
    // Selling NO (a YES buy at 1 − 0.75) adds to the same long.
    expect(await json(await post('/retail/v1/orders', order('ORDER_INTENT_SELL_SHORT', 1, '0.75')))).toMatchObject({
      code: 'RISK_POSITION_LIMIT',
      observed: 11,
    });
    // Selling what is held reduces the exposure: never refused by this limit.
    expect((await post('/retail/v1/orders', order('ORDER_INTENT_SELL_LONG', 3, '0.90'))).status).toBe(200);
    expect(creates()).toBe(before + 2);
  });
});

describe("an exchange insert's net position counts the scope's retail accounts too (one book per market)", () => {
  let stack: Stack;
  const BOTH = [
    {
      id: 'both-app',
      team: 'trading',
      scopes: ['write:orders' as const, 'read:orders' as const],
      participants: [PARTICIPANT],
      retailAccounts: ['main'],
    },
  ];
  /** A buy of `orderQty` on SLUG through the participant: sent (`orders`) or judged only (`orders/check`). */
  const buy = (route: 'orders' | 'orders/check', orderQty: number) =>
    api(stack, 'both-app')(`/exchange/v1/trading/${route}`, {
      method: 'POST',
      body: JSON.stringify({
        symbol: SLUG,
        side: 'SIDE_BUY',
        type: 'ORDER_TYPE_LIMIT',
        timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
        orderQty: String(orderQty),
        price: '30',
      }),
      headers: { 'x-participant-id': PARTICIPANT },
    });

  beforeAll(async () => {
    stack = await startStack({
      clients: BOTH,
      gateway: (config) => ({
        ...config,
        risk: { limits: [{ scope: 'client', id: 'both-app', market: SLUG, maxNetPosition: MAX_POSITION }] },
      }),
    });
  });
  afterAll(() => stack?.close());

  it('refuses an exchange buy that the retail long would take past the limit, and takes one within it', async () => {
    const engine = stack.sandbox.state.engine;
    buyYesOutside(stack, 'x');
    // The retail long of 6 reaches the gateway on the account's position channel: the what-if shows when.
    const check = () => buy('orders/check', 5).then((res) => res.status);
    await eventually(check, (status) => status === 422);
    const inserts = () => engine.openOrders(PARTICIPANT).length;
    const refused = await buy('orders', 5);
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({ code: 'RISK_POSITION_LIMIT', limit: MAX_POSITION, observed: 11 });
    expect(inserts()).toBe(0);
    expect((await buy('orders', 4)).status).toBe(200);
    expect(inserts()).toBe(1);
  });
});

describe('retail positions unknown: fail closed', () => {
  let stack: Stack;
  // A retail account the venue does not know (its key id is refused): its position channel never delivers.
  const withGhost = (config: GatewayConfigInput): GatewayConfigInput => {
    const development = config.environments!.development!;
    const ghost = { ...development.retailAccounts![0], name: 'ghost', keyId: '0b7e4c1a-2f3d-4e5a-8b9c-1d2e3f4a5b6c' };
    return withLimit({
      ...config,
      environments: { development: { ...development, retailAccounts: [...development.retailAccounts!, ghost] } },
    });
  };

  beforeAll(async () => {
    stack = await startStack({
      clients: [{ ...CLIENTS[0], retailAccounts: ['ghost'] }],
      gateway: withGhost,
    });
  });
  afterAll(() => stack?.close());

  it('refuses a retail create under a net-position limit 503 RISK_POSITION_UNKNOWN, nothing sent', async () => {
    const creates = () => stack.sandbox.state.counterSnapshot()['retail.route.createOrder'] ?? 0;
    const before = creates();
    const res = await api(stack, 'pos-app')('/retail/v1/orders', {
      method: 'POST',
      body: JSON.stringify(order('ORDER_INTENT_BUY_LONG', 1, '0.30')),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await json(res)).toMatchObject({ code: 'RISK_POSITION_UNKNOWN', order: 'body' });
    expect(creates()).toBe(before);
  });
});
