import { COUNTERPARTY, post } from './support/exchange-stack.js';
import { type Stack, api, json, startStack } from './support/stack.js';

const SLUG = 'aec-nfl-bal-pit-2026-11-22';
const CLIENTS = [
  {
    id: 'ro-app',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const, 'read:positions' as const],
    retailAccounts: ['main'],
  },
];

/** The sandbox's key id of the `main` retail account (an engine account of its own). */
const MAIN_KEY = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';

/** The `main` account buys 6 YES straight on the engine (outside the gateway). */
function buyYesOutside(stack: Stack): void {
  const engine = stack.sandbox.state.engine;
  const common = { symbol: SLUG, orderQty: 6, price: 40 } as const;
  engine.insert({
    ...common,
    side: 'SIDE_SELL',
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: COUNTERPARTY,
    clordId: 'ro-offer',
  });
  engine.insert({
    ...common,
    side: 'SIDE_BUY',
    timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
    account: MAIN_KEY,
    clordId: 'ro-lift',
  });
}

const order = (intent: string, quantity: number, price: string) => ({
  marketSlug: SLUG,
  intent,
  price: { value: price, currency: 'USD' },
  quantity,
});

/**
 * A retail sell from a flat account opens a position (SELL_LONG sells YES it does not hold: a NO
 * holding; SELL_SHORT buys YES): under reduce-only it is refused, as on the exchange surface.
 */
describe('reduce-only on retail creates: a sell reduces only against the position it sells', () => {
  let stack: Stack;
  const creates = () => stack.sandbox.state.counterSnapshot()['retail.route.createOrder'] ?? 0;
  const create = (body: unknown) =>
    api(stack, 'ro-app')('/retail/v1/orders', { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    // The reduce-only reads (open orders: 55 per 10 s per key, shared) are lifted: the last case reads them a dozen times at once.
    stack = await startStack({
      clients: CLIENTS,
      gateway: (config) => ({
        ...config,
        limits: {
          ...config.limits,
          maxDecisionAgeMs: 30_000,
          buckets: { ...config.limits?.buckets, 'retail.orders.open': { limit: 10_000, windowSeconds: 1 } },
        },
      }),
    });
    expect(
      (await post(stack, '/admin/risk/states', { scope: 'team:trading', state: 'reduce-only', reason: 'ro test' }))
        .status,
    ).toBe(200);
  });
  afterAll(() => stack?.close());

  it.each(['ORDER_INTENT_SELL_LONG', 'ORDER_INTENT_SELL_SHORT'])(
    'refuses a %s from flat 403 TRADING_REDUCE_ONLY, nothing sent',
    async (intent) => {
      const before = creates();
      const refused = await create(order(intent, 5, '0.60'));
      expect(refused.status).toBe(403);
      expect(await json(refused)).toMatchObject({ code: 'TRADING_REDUCE_ONLY', scope: 'team:trading' });
      expect(creates()).toBe(before);
      const positions = await json(await api(stack, 'ro-app')('/retail/v1/portfolio/positions', { method: 'GET' }));
      expect(JSON.stringify(positions)).not.toContain(SLUG);
    },
  );

  it('takes a sell of a long no further than flat, its open sells counted ahead; a NO sell (buys YES) is refused', async () => {
    buyYesOutside(stack);
    const tooMuch = await create(order('ORDER_INTENT_SELL_LONG', 7, '0.90'));
    expect(tooMuch.status).toBe(403);
    expect(await json(tooMuch)).toMatchObject({ code: 'TRADING_REDUCE_ONLY' });
    expect((await create(order('ORDER_INTENT_SELL_LONG', 4, '0.90'))).status).toBe(200);
    // 4 of the 6 are already offered: 3 more would sell past flat.
    expect((await create(order('ORDER_INTENT_SELL_LONG', 3, '0.90'))).status).toBe(403);
    expect((await create(order('ORDER_INTENT_SELL_LONG', 2, '0.90'))).status).toBe(200);
    expect((await create(order('ORDER_INTENT_SELL_SHORT', 1, '0.90'))).status).toBe(403);
  });

  it('still refuses a buy', async () => {
    const refused = await create(order('ORDER_INTENT_BUY_LONG', 1, '0.30'));
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ code: 'TRADING_REDUCE_ONLY' });
  });

  it('takes concurrent sells no further than flat: each is judged again, holding the market, against the one before', async () => {
    // Long 12 now, with sells of 6 open: room for one more sell of 6. Judged at once, all six read that room.
    buyYesOutside(stack);
    const before = creates();
    const answers = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const res = await create(order('ORDER_INTENT_SELL_LONG', 6, '0.90'));
        return `${res.status} ${res.status === 200 ? '' : (await json(res)).code}`.trim();
      }),
    );
    process.stdout.write(`concurrent retail sells: ${answers.join(', ')}\n`);
    for (const answer of answers)
      expect(['200', '403 TRADING_REDUCE_ONLY', '503 RISK_POSITION_UNKNOWN', '429 RATE_LIMITED']).toContain(answer);
    // The promise: never past flat (one sell of 6 at most); and not vacuous: the first passes unless a budget refused it.
    expect(answers.filter((answer) => answer === '200').length).toBeLessThanOrEqual(1);
    expect(creates() - before).toBeLessThanOrEqual(1);
    expect(answers.filter((answer) => answer === '200' || answer.startsWith('429')).length).toBeGreaterThanOrEqual(1);
  });
});
