import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json, pastGatewayRefusals } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/**
 * A refusal at a full open-order count reads the exchange's open orders (to give back the slots of
 * orders closed outside the gateway's sight) at most once a second per instance. Found by a probe: a
 * bot looping on an insert refused for its full count made one upstream read per refusal (19 reads for
 * 19 refusals), spent under the `gateway` team. Real sandbox and Redis.
 */
const MAX_OPEN = 2;
const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'bot', maxOpenOrders: MAX_OPEN }] },
});

describe('a full open-order count refuses without an upstream read per refusal', () => {
  let stack: Stack;
  const reads = () => stack.sandbox.state.counterSnapshot()['exchange.calls.openOrders'] ?? 0;
  const insert = (price: number, clordId?: string) =>
    post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, price, clordId ? { clordId } : {}), 'bot');

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { redis: true, gateway: withLimit });
    for (let i = 0; i < MAX_OPEN; i++)
      expect((await pastGatewayRefusals(() => insert(20 + i, `full-${i}`))).status).toBe(200);
  });
  afterAll(() => stack?.close());

  it('reads at most once a second while a bot loops on refused inserts, and still frees the slot of an order filled elsewhere', async () => {
    const before = reads();
    const started = performance.now();
    const codes: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await insert(5);
      codes.push(res.status === 422 ? ((await json(res)).code as string) : String(res.status));
    }
    const seconds = (performance.now() - started) / 1000;
    const made = reads() - before;
    console.log(`30 refusals in ${seconds.toFixed(2)} s made ${made} open-orders reads`);
    expect(new Set(codes)).toEqual(new Set(['RISK_MAX_OPEN_ORDERS']));
    // The promise: one read per started second at most (the first refusal reads at once).
    expect(made).toBeLessThanOrEqual(Math.ceil(seconds) + 1);

    // A resting order filled by another firm (outside the gateway): its slot comes back on a later reconcile.
    stack.sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 21,
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      account: COUNTERPARTY,
    });
    const passed = await eventually(
      async () => (await insert(6)).status,
      (status) => status === 200,
      10_000,
      200,
    );
    expect(passed).toBe(200);
  }, 30_000);
});
