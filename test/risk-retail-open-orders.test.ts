import { COUNTERPARTY } from './support/exchange-stack.js';
import { type Fleet, resetRetailLimits, startFleet, withoutKeyRate } from './support/fleet.js';
import { caller } from './support/load.js';
import { eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const MAX_OPEN = 8;
const CREATES = 40;
const SLUG = 'aec-nfl-gb-chi-2026-11-22';
/** The sandbox's key ids of the `main` and `hedge` retail accounts (engine accounts of their own). */
const MAIN_KEY = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';
const HEDGE_KEY = '8a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const TRADER = ['write:orders' as const, 'read:orders' as const];
const APPS = [
  { id: 'app-1', team: 'trading', scopes: TRADER, retailAccounts: ['main'] },
  { id: 'app-2', team: 'trading', scopes: TRADER, retailAccounts: ['main'] },
  { id: 'small-app', team: 'platform', scopes: TRADER, retailAccounts: ['hedge'] },
];

const withLimits = (config: GatewayConfigInput): GatewayConfigInput =>
  withoutKeyRate({
    ...config,
    risk: {
      limits: [
        { scope: 'team', id: 'trading', maxOpenOrders: MAX_OPEN },
        { scope: 'client', id: 'small-app', maxOpenNotional: 5 },
      ],
    },
  });

const bid = (quantity: number, price: string) => ({
  marketSlug: SLUG,
  intent: 'ORDER_INTENT_BUY_LONG',
  price: { value: price, currency: 'USD' },
  quantity,
});

describe('retail creates against max open orders and open notional, reserved atomically across gateway processes', () => {
  let fleet: Fleet;
  const openAtSandbox = (key = MAIN_KEY) => fleet.stack.sandbox.state.engine.openOrders(key).length;
  const via = (i: number, app = APPS[i % 2].id) =>
    caller(fleet.processes[Math.floor(i / 2) % 2].url, fleet.stack.keys[app]);
  const send = (i: number, path: string, body: unknown, app?: string) =>
    via(i, app)(path, { method: 'POST', body: JSON.stringify(body), headers: { prefer: 'wait=20' } });
  const create = (i: number, body: unknown, app?: string) => send(i, '/retail/v1/orders', body, app);

  beforeAll(async () => {
    fleet = await startFleet('riskretail', 2, { clients: APPS, gateway: withLimits }, withLimits);
    resetRetailLimits(fleet.stack);
  }, 120_000);
  afterAll(() => fleet?.close());

  it(`two processes under ${CREATES} concurrent retail creates never have more than ${MAX_OPEN} open at the venue, and reach ${MAX_OPEN}`, async () => {
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, openAtSandbox())), 2);
    const answers = await Promise.all(
      Array.from({ length: CREATES }, (_, i) =>
        create(i, bid(1, `0.${String(1 + (i % 20)).padStart(2, '0')}`)).then(async (res) => ({
          status: res.status,
          code: res.ok ? 'OK' : ((await json(res)).code as string),
        })),
      ),
    );
    // Top up what the budget refused until the count itself refuses.
    for (let i = 0; i < MAX_OPEN + 5; i++) {
      const res = await create(i, bid(1, '0.02'));
      if (res.status === 422 && (await json(res)).code === 'RISK_MAX_OPEN_ORDERS') break;
    }
    clearInterval(sample);
    most = Math.max(most, openAtSandbox());
    const tally = answers.reduce<Record<string, number>>((n, a) => ({ ...n, [a.code]: (n[a.code] ?? 0) + 1 }), {});
    process.stdout.write(
      `retail open-order storm: ${JSON.stringify(tally)}; most open at the sandbox ${most}; now ${openAtSandbox()}\n`,
    );
    expect(answers).toHaveLength(CREATES);
    expect(most).toBeLessThanOrEqual(MAX_OPEN);
    expect(openAtSandbox()).toBe(MAX_OPEN);
    expect(tally.RISK_MAX_OPEN_ORDERS).toBeGreaterThan(0);
    const refusal = await create(1, bid(1, '0.03'));
    expect(refusal.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(refusal)).toMatchObject({
      code: 'RISK_MAX_OPEN_ORDERS',
      limit: MAX_OPEN,
      observed: MAX_OPEN + 1,
      scope: 'team:trading',
    });
  });

  it('gives a slot back on a retail cancel through the gateway, and on a fill seen on the order channel', async () => {
    const [first] = fleet.stack.sandbox.state.engine.openOrders(MAIN_KEY);
    expect((await send(1, `/retail/v1/order/${first.id}/cancel`, { marketSlug: SLUG })).status).toBe(200);
    expect((await create(0, bid(1, '0.04'))).status).toBe(200);
    expect((await json(await create(2, bid(1, '0.04')))).code).toBe('RISK_MAX_OPEN_ORDERS');
    // Another firm sells into the best resting bid: it fills at the venue; the account's order channel says so.
    fleet.stack.sandbox.state.engine.insert({
      symbol: SLUG,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 1,
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      account: COUNTERPARTY,
      clordId: 'hit',
    });
    expect(openAtSandbox()).toBe(MAX_OPEN - 1);
    await eventually(
      () => send(3, '/retail/v1/order/check', bid(1, '0.04')).then((res) => res.status),
      (status) => status === 200,
    );
    expect((await create(3, bid(1, '0.04'))).status).toBe(200);
    expect(openAtSandbox()).toBe(MAX_OPEN);
  });

  it('refuses a retail create past the open notional (worst case) with RISK_OPEN_NOTIONAL, nothing sent', async () => {
    // 10 × $0.30 = $3 open; 10 more would make $6 over the $5.
    expect((await create(0, bid(10, '0.30'), 'small-app')).status).toBe(200);
    const creates = () => fleet.stack.sandbox.state.counterSnapshot()['retail.route.createOrder'] ?? 0;
    const before = creates();
    const over = await create(1, bid(10, '0.30'), 'small-app');
    expect(over.status).toBe(422);
    expect(await json(over)).toMatchObject({
      code: 'RISK_OPEN_NOTIONAL',
      limit: 5,
      observed: 6,
      scope: 'client:small-app',
    });
    expect(creates()).toBe(before);
    expect(openAtSandbox(HEDGE_KEY)).toBe(1);
    // 5 × $0.30 more makes $4.50: within the limit.
    expect((await create(2, bid(5, '0.30'), 'small-app')).status).toBe(200);
  });
});
