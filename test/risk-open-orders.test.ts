import { COUNTERPARTY, SYMBOL, limit } from './support/exchange-stack.js';
import { type Fleet, startFleet } from './support/fleet.js';
import { caller } from './support/load.js';
import { PARTICIPANT, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const MAX_OPEN = 50;
const INSERTS = 300;
const BOTS = [
  {
    id: 'bot-1',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
  {
    id: 'bot-2',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];

const withOpenLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'team', id: 'trading', maxOpenOrders: MAX_OPEN }] },
});

describe('max open orders, reserved atomically across gateway processes', () => {
  let fleet: Fleet;
  const openAtSandbox = () => fleet.stack.sandbox.state.engine.openOrders(PARTICIPANT).length;
  // Both bots on both processes: the count is the team's, wherever its orders enter.
  const via = (i: number) => caller(fleet.processes[i % 2].url, fleet.stack.keys[BOTS[Math.floor(i / 2) % 2].id]);
  const insert = (i: number, order: object, wait = true) =>
    via(i)('/exchange/v1/trading/orders', {
      method: 'POST',
      body: JSON.stringify(order),
      headers: wait ? { prefer: 'wait=20' } : {},
    });

  beforeAll(async () => {
    fleet = await startFleet(
      'riskopen',
      2,
      {
        clients: BOTS,
        gateway: withOpenLimit,
        sandbox: { exchange: { limits: { instruments: 'off', book: 'off', search: 'off', 'trade-stats': 'off' } } },
      },
      withOpenLimit,
    );
  }, 120_000);
  afterAll(() => fleet?.close());

  it(`two processes under ${INSERTS} concurrent inserts never have more than ${MAX_OPEN} open at the exchange, and reach ${MAX_OPEN}`, async () => {
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, openAtSandbox())), 2);
    const answers = await Promise.all(
      Array.from({ length: INSERTS }, (_, i) =>
        insert(i, limit('SIDE_BUY', 1, 1 + (i % 30), { clordId: `storm-${i}` })).then(async (res) => ({
          status: res.status,
          code: res.ok ? 'OK' : ((await json(res)).code as string),
        })),
      ),
    );
    // Top up what the budget refused (a 429 gives its slot back) until the count itself refuses.
    for (let i = 0; i < MAX_OPEN + 5; i++) {
      const res = await insert(i, limit('SIDE_BUY', 1, 2, { clordId: `top-${i}` }));
      if (res.status === 422 && (await json(res)).code === 'RISK_MAX_OPEN_ORDERS') break;
    }
    clearInterval(sample);
    most = Math.max(most, openAtSandbox());
    const tally = answers.reduce<Record<string, number>>(
      (counts, a) => ({ ...counts, [a.code]: (counts[a.code] ?? 0) + 1 }),
      {},
    );
    process.stdout.write(
      `open-order storm: ${JSON.stringify(tally)}; most open at the sandbox ${most}; now ${openAtSandbox()}\n`,
    );
    expect(answers).toHaveLength(INSERTS);
    expect(most).toBeLessThanOrEqual(MAX_OPEN);
    expect(openAtSandbox()).toBe(MAX_OPEN);
    expect(tally.RISK_MAX_OPEN_ORDERS).toBeGreaterThan(0);
    const refusal = await json(await insert(0, limit('SIDE_BUY', 1, 3)));
    expect(refusal).toMatchObject({
      code: 'RISK_MAX_OPEN_ORDERS',
      limit: MAX_OPEN,
      observed: MAX_OPEN + 1,
      scope: 'team:trading',
    });
  });

  it('gives a slot back when an order is cancelled through the gateway, or found filled at the exchange', async () => {
    const [first] = fleet.stack.sandbox.state.engine.openOrders(PARTICIPANT);
    const cancel = await via(1)('/exchange/v1/trading/orders/cancel', {
      method: 'POST',
      body: JSON.stringify({ orderId: first.id }),
    });
    expect(cancel.status).toBe(200);
    expect((await insert(0, limit('SIDE_BUY', 1, 4, { clordId: 'after-cancel' }))).status).toBe(200);
    expect((await json(await insert(1, limit('SIDE_BUY', 1, 4)))).code).toBe('RISK_MAX_OPEN_ORDERS');
    // Another firm sells into one resting bid: it fills at the exchange, unseen by the gateway until a count is full.
    fleet.stack.sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 1,
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      account: COUNTERPARTY,
      clordId: 'hit',
    });
    expect(openAtSandbox()).toBe(MAX_OPEN - 1);
    expect((await insert(1, limit('SIDE_BUY', 1, 4, { clordId: 'after-fill' }))).status).toBe(200);
    expect(openAtSandbox()).toBe(MAX_OPEN);
  });
});
