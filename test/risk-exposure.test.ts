import { COUNTERPARTY, SYMBOL, limit } from './support/exchange-stack.js';
import { type Fleet, startFleet } from './support/fleet.js';
import { caller } from './support/load.js';
import { PARTICIPANT, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const MAX_OPEN_NOTIONAL = 50;
/** Each storm order: a buy of 10 at 50 cents, $5 at its worst case: ten fill the budget exactly. */
const STORM_ORDER = { qty: 10, price: 50, dollars: 5 };
const INSERTS = 120;
/** Another open market, for the net position: its own limit, away from the storm's. */
const OTHER = 'aec-nba-lal-gsw-2026-11-21';
const MAX_POSITION = 10;
const TRADER = ['write:orders' as const, 'read:orders' as const];
const BOTS = [
  { id: 'bot-1', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] },
  { id: 'bot-2', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] },
];

const withExposureLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: {
    limits: [
      { scope: 'team', id: 'trading', market: SYMBOL, maxOpenNotional: MAX_OPEN_NOTIONAL },
      { scope: 'client', id: 'bot-1', market: OTHER, maxNetPosition: MAX_POSITION },
    ],
  },
});

describe('max open notional and max net position, reserved atomically across gateway processes', () => {
  let fleet: Fleet;
  const engine = () => fleet.stack.sandbox.state.engine;
  /** Dollars the participant's open buys in the storm's market hold at the exchange (price in cents). */
  const openNotional = () =>
    engine()
      .openOrders(PARTICIPANT, [SYMBOL])
      .reduce((sum, order) => sum + (order.leavesQty * order.price) / 100, 0);
  const via = (i: number) => caller(fleet.processes[i % 2].url, fleet.stack.keys[BOTS[Math.floor(i / 2) % 2].id]);
  const insert = (i: number, order: object) =>
    via(i)('/exchange/v1/trading/orders', {
      method: 'POST',
      body: JSON.stringify(order),
      headers: { prefer: 'wait=20' },
    });

  beforeAll(async () => {
    fleet = await startFleet(
      'riskexposure',
      2,
      {
        clients: BOTS,
        gateway: withExposureLimits,
        sandbox: { exchange: { limits: { instruments: 'off', book: 'off', search: 'off', 'trade-stats': 'off' } } },
      },
      withExposureLimits,
    );
  }, 120_000);
  afterAll(() => fleet?.close());

  it(`two processes under ${INSERTS} concurrent inserts never hold more than $${MAX_OPEN_NOTIONAL} open together, and reach it`, async () => {
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, openNotional())), 2);
    const storm = (i: number, clordId: string) =>
      insert(i, limit('SIDE_BUY', STORM_ORDER.qty, STORM_ORDER.price, { clordId }));
    const answers = await Promise.all(
      Array.from({ length: INSERTS }, (_, i) =>
        storm(i, `notional-${i}`).then(async (res) => (res.ok ? 'OK' : ((await json(res)).code as string))),
      ),
    );
    // Top up what the budget refused (a 429 gives its reservation back) until the count itself refuses.
    for (let i = 0; i < MAX_OPEN_NOTIONAL / STORM_ORDER.dollars + 5; i++) {
      const res = await storm(i, `notional-top-${i}`);
      if (res.status === 422 && (await json(res)).code === 'RISK_OPEN_NOTIONAL') break;
    }
    clearInterval(sample);
    most = Math.max(most, openNotional());
    const tally = answers.reduce<Record<string, number>>(
      (counts, code) => ({ ...counts, [code]: (counts[code] ?? 0) + 1 }),
      {},
    );
    process.stdout.write(
      `open-notional storm: ${JSON.stringify(tally)}; most open at the sandbox $${most}; now $${openNotional()}\n`,
    );
    expect(answers).toHaveLength(INSERTS);
    expect(most).toBeLessThanOrEqual(MAX_OPEN_NOTIONAL);
    expect(openNotional()).toBe(MAX_OPEN_NOTIONAL);
    expect(tally.RISK_OPEN_NOTIONAL).toBeGreaterThan(0);
    const refusal = await json(await insert(0, limit('SIDE_BUY', 1, 1)));
    expect(refusal).toMatchObject({
      code: 'RISK_OPEN_NOTIONAL',
      limit: MAX_OPEN_NOTIONAL,
      observed: MAX_OPEN_NOTIONAL + 0.01,
      scope: 'team:trading',
      market: SYMBOL,
    });
    // A cancel is never refused, and gives its notional back.
    const [first] = engine().openOrders(PARTICIPANT, [SYMBOL]);
    expect(
      (
        await via(1)('/exchange/v1/trading/orders/cancel', {
          method: 'POST',
          body: JSON.stringify({ orderId: first.id }),
        })
      ).status,
    ).toBe(200);
    expect((await storm(0, 'notional-after-cancel')).status).toBe(200);
    expect(openNotional()).toBe(MAX_OPEN_NOTIONAL);
  });

  it('refuses an order that would take the net position (position + same-side open + order) past the limit, and accepts one that reduces it', async () => {
    const bot = caller(fleet.processes[0].url, fleet.stack.keys['bot-1']);
    const other = caller(fleet.processes[1].url, fleet.stack.keys['bot-1']);
    const order = (side: 'SIDE_BUY' | 'SIDE_SELL', qty: number, price: number, clordId: string) => ({
      ...limit(side, qty, price, { clordId }),
      symbol: OTHER,
    });
    const send = (to: typeof bot, body: object) =>
      to('/exchange/v1/trading/orders', { method: 'POST', body: JSON.stringify(body), headers: { prefer: 'wait=20' } });
    // The position comes from the position stream each process holds: wait until both show it (a what-if sell the position decides passes).
    const positionShown = async (sell: number, clordId: string) => {
      for (const to of [bot, other]) {
        await eventually(
          () =>
            to('/exchange/v1/trading/orders/check', {
              method: 'POST',
              body: JSON.stringify(order('SIDE_SELL', sell, 60, clordId)),
            }).then((res) => res.status),
          (status) => status === 200,
          15_000,
          50,
        );
      }
    };
    // A long position of 8: a resting buy through the gateway, filled by another firm at the exchange.
    expect((await send(bot, order('SIDE_BUY', 8, 40, 'pos-open'))).status).toBe(200);
    engine().insert({
      symbol: OTHER,
      side: 'SIDE_SELL',
      orderQty: 8,
      price: 40,
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      account: COUNTERPARTY,
      clordId: 'pos-hit',
    });
    expect(engine().position(PARTICIPANT, OTHER)).toMatchObject({ netPosition: 8 });
    // Short 11 from 0 is over the limit; from 8 long it is 3 short.
    await positionShown(11, 'pos-shown-8');

    const over = await send(other, order('SIDE_BUY', 3, 40, 'pos-over'));
    expect({ status: over.status, body: await json(over) }).toMatchObject({
      status: 422,
      body: { code: 'RISK_POSITION_LIMIT', limit: MAX_POSITION, observed: 11, scope: 'client:bot-1', market: OTHER },
    });
    // A sell reduces the long: accepted (it rests; no bid to meet).
    expect((await send(bot, order('SIDE_SELL', 5, 60, 'pos-reduce'))).status).toBe(200);
    // Up to the limit with the position: 8 + 2 = 10 passes; then the open buy counts: 8 + 2 + 1 = 11 does not, on either process.
    expect((await send(other, order('SIDE_BUY', 2, 40, 'pos-to-limit'))).status).toBe(200);
    const sameSide = await send(bot, order('SIDE_BUY', 1, 40, 'pos-same-side'));
    expect({ status: sameSide.status, body: await json(sameSide) }).toMatchObject({
      status: 422,
      body: { code: 'RISK_POSITION_LIMIT', observed: 11 },
    });
    expect(
      engine()
        .openOrders(PARTICIPANT, [OTHER])
        .map((o) => o.clordId)
        .sort(),
    ).toEqual(['pos-reduce', 'pos-to-limit']);
    // A partial fill moves quantity from open to position: 9 long, 1 of the buy still open; 9 + 1 + 1 = 11, not 9 + 2 + 1.
    engine().insert({
      symbol: OTHER,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 40,
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      account: COUNTERPARTY,
      clordId: 'pos-partial',
    });
    expect(engine().position(PARTICIPANT, OTHER)).toMatchObject({ netPosition: 9 });
    // With the open sell of 5: from 8 long, a sell of 14 ends 11 short (refused); from 9, 10 short (passes).
    await positionShown(14, 'pos-shown-9');
    const afterFill = await send(other, order('SIDE_BUY', 1, 40, 'pos-after-fill'));
    expect({ status: afterFill.status, body: await json(afterFill) }).toMatchObject({
      status: 422,
      body: { code: 'RISK_POSITION_LIMIT', observed: 11 },
    });
    // And a sell that reduces still passes: 9 - 5 open - 4 = 0.
    expect((await send(bot, order('SIDE_SELL', 4, 60, 'pos-reduce-more'))).status).toBe(200);
  });
});
