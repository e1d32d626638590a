import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';
import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json } from './support/stack.js';

// Under reduce-only an order passes only if it reduces the position, judged against the position and the
// open orders read from the exchange. Orders judged at once read the same position: of eight sells of 10
// against a long 10, sent together to two instances, four passed on the code before (open sells of 40,
// short 30 once they trade). Each is judged again right before its send now, holding its participant's
// market on every instance until its answer, so the next one reads open orders that count it.

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const, 'read:positions' as const],
    participants: [PARTICIPANT],
  },
];
const SELLS = 8;
/** Not about lateness: a budget decision read late on a busy machine is not refused here. */
const lenient = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: { ...config.limits, maxDecisionAgeMs: 30_000 },
});

describe('concurrent reducing orders under reduce-only, on two instances', () => {
  let a: Stack;
  let b: Stack;
  const prefix = `reducing${process.pid}:`;

  beforeAll(async () => {
    a = await startExchangeStack(CLIENTS, { redis: true, redisKeyPrefix: prefix, gateway: lenient });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      redisKeyPrefix: prefix,
      reuseSandbox: a.sandbox,
      gateway: lenient,
    });
  }, 90_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('pass no further than flat: the sells that reach the exchange add up to the long position at most', async () => {
    const { engine } = a.sandbox.state;
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 10,
      price: 60,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: COUNTERPARTY,
      clordId: 'carol-sells',
    });
    const long = await post(a, '/exchange/v1/trading/orders', limit('SIDE_BUY', 10, 60, { clordId: 'go-long' }), 'bot');
    expect({ status: long.status, body: await json(long) }).toMatchObject({ status: 200 });
    expect(
      (await post(a, '/admin/risk/states', { scope: 'team:trading', state: 'reduce-only', reason: 'test' })).status,
    ).toBe(200);
    // Both instances have the state before the sells go.
    await eventually(
      () => post(b, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 1, 20), 'bot').then((res) => res.status),
      (status) => status === 403,
      5_000,
    );

    const answers = await Promise.all(
      Array.from({ length: SELLS }, (_, i) =>
        post(
          i % 2 ? b : a,
          '/exchange/v1/trading/orders',
          limit('SIDE_SELL', 10, 90, { clordId: `sell-${i}` }),
          'bot',
        ).then(async (res) => ({ status: res.status, body: await json(res) })),
      ),
    );
    const placed = answers.filter((answer) => answer.status === 200);
    const refusals = answers
      .filter((answer) => answer.status !== 200)
      .map((answer) => `${answer.status} ${answer.body.code}`);
    process.stdout.write(`${placed.length} placed; refused: ${refusals.join(', ')}\n`);
    // Refused for the position, for another reducing order in flight, or for the reads' budget: nothing sent.
    for (const refusal of refusals)
      expect(['403 TRADING_REDUCE_ONLY', '503 RISK_POSITION_UNKNOWN', '429 RATE_LIMITED']).toContain(refusal);
    // The promise: never past flat.
    const openSells = engine
      .searchOrders({})
      .order.filter(
        (order) => order.account === PARTICIPANT && order.side === 'SIDE_SELL' && order.state === 'ORDER_STATE_NEW',
      );
    expect(openSells.reduce((sum, order) => sum + Number(order.orderQty), 0)).toBeLessThanOrEqual(10);
    expect(placed.length).toBeLessThanOrEqual(1);
    // Not vacuous: the first reducing sell passes unless its reads found no budget.
    expect(placed.length + refusals.filter((refusal) => refusal.startsWith('429')).length).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
