import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const, 'read:positions' as const],
    participants: [PARTICIPANT],
  },
];
/** One insert every 4 s, no burst: an order sent right after another queues for its budget (`Prefer: wait`). */
const scarceInserts = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: {
    ...config.limits,
    buckets: {
      ...config.limits?.buckets,
      'exchange.orders.insert': { limit: 1, windowSeconds: 4, safetyMargin: 1, burst: 1 },
    },
  },
  risk: { limits: [{ scope: 'client', id: 'bot', maxOpenOrders: 2 }] },
});

describe('the trading states are checked again right before an order is sent (issue 26)', () => {
  let stack: Stack;
  const engine = () => stack.sandbox.state.engine;
  const inserts = () => stack.sandbox.state.counterSnapshot()['exchange.calls.insertOrder'] ?? 0;
  const insert = (order: object, headers: Record<string, string> = {}) =>
    post(stack, '/exchange/v1/trading/orders', order, 'bot', { prefer: 'wait=5', ...headers });
  const setState = (scope: string, state: string, reason = 'send-time test') =>
    post(stack, '/admin/risk/states', { scope, state, reason });
  /** The intent of `clordId` is journaled (404 until then): its risk checks passed, and it is on its way to the budget. */
  const admitted = (clordId: string) =>
    eventually(
      () => api(stack)(`/orders/timeline?clordId=${clordId}`).then(json),
      (body: { records?: { kind: string }[] }) => body.records?.some((r) => r.kind === 'received') ?? false,
      10_000,
    );
  const cancel = (orderId: string) => post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'bot');

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { redis: true, gateway: scarceInserts });
  });
  afterAll(() => stack?.close());

  it('a halt latched while an insert waits for budget refuses it: nothing sent, its open-order slot, key and budget given back', async () => {
    const first = await insert(limit('SIDE_BUY', 1, 10, { clordId: 'st-first' }));
    expect(first.status).toBe(200);
    const before = inserts();
    // The bucket is empty now: this one queues for the next token (up to 4 s).
    const queued = insert(limit('SIDE_BUY', 1, 11, { clordId: 'st-queued' }), { 'idempotency-key': 'st-k' });
    await admitted('st-queued');
    expect((await setState('team:trading', 'halted')).status).toBe(200);
    const res = await queued;
    const body = await json(res);
    expect({ status: res.status, code: body.code, scope: body.scope, stage: body.stage }).toEqual({
      status: 403,
      code: 'TRADING_HALTED',
      scope: 'team:trading',
      stage: 'send',
    });
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(body.detail).toContain('nothing was sent');
    expect(inserts()).toBe(before);
    expect(
      engine()
        .openOrders(PARTICIPANT)
        .map((o) => o.clordId),
    ).toEqual(['st-first']);
    // A retry under the same key is judged again (the key was freed: the order was not sent), and refused while halted.
    const retried = await insert(limit('SIDE_BUY', 1, 11, { clordId: 'st-queued' }), { 'idempotency-key': 'st-k' });
    expect((await json(retried)).code).toBe('TRADING_HALTED');
    const timeline = await json(await api(stack)('/orders/timeline?clordId=st-queued'));
    expect(timeline.records.map((r: { kind: string }) => r.kind)).not.toContain('sent');

    expect((await setState('team:trading', 'active', 'lifted')).status).toBe(200);
    // Its budget went back: the next insert needs no wait (Prefer: wait=0 answers 429 at once otherwise), and its slot (2 open at most) is free.
    const next = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 12, { clordId: 'st-next' }),
      'bot',
    );
    expect(next.status).toBe(200);
    for (const order of engine().openOrders(PARTICIPANT)) expect((await cancel(order.id)).status).toBe(200);
  });

  it('a reduce-only state latched while a buy waits for budget refuses it (it would not reduce): nothing sent', async () => {
    const first = await insert(limit('SIDE_BUY', 1, 10, { clordId: 'st-ro-first' }));
    expect(first.status).toBe(200);
    const before = inserts();
    const queued = insert(limit('SIDE_BUY', 1, 11, { clordId: 'st-ro-queued' }));
    await admitted('st-ro-queued');
    expect((await setState('client:bot', 'reduce-only')).status).toBe(200);
    const res = await queued;
    expect({ status: res.status, code: (await json(res)).code }).toEqual({ status: 403, code: 'TRADING_REDUCE_ONLY' });
    expect(inserts()).toBe(before);
    expect(
      engine()
        .openOrders(PARTICIPANT)
        .map((o) => o.clordId),
    ).toEqual(['st-ro-first']);
    // A cancel passes.
    expect((await cancel(engine().openOrders(PARTICIPANT)[0]!.id)).status).toBe(200);
    expect(engine().openOrders(PARTICIPANT)).toEqual([]);
    expect((await setState('client:bot', 'active', 'lifted')).status).toBe(200);
  });
});
