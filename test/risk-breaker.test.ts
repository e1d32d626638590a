import { limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const TRADER = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'storm', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] },
  { id: 'calm', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] },
  { id: 'shop', team: 'platform', scopes: TRADER, participants: [], retailAccounts: ['main'] },
];
const RETAIL_TRIP_AT = 3;
const usd = (value: string) => ({ value, currency: 'USD' });
const retailOrder = (marketSlug: string) => ({
  marketSlug,
  intent: 'ORDER_INTENT_BUY_LONG',
  price: usd('0.05'),
  quantity: 1,
});
/** The default stays high; `storm` has an override of 4 rejects in 60 s (the per-client figures of `risk.breaker.clients`). */
const TRIP_AT = 4;
const withBreaker = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: {
    breaker: {
      rejects: 50,
      windowSeconds: 60,
      coolOffSeconds: 300,
      clients: { storm: { rejects: TRIP_AT }, shop: { rejects: RETAIL_TRIP_AT } },
    },
  },
});

const insert = (stack: Stack, order: object, client: string, headers: Record<string, string> = {}) =>
  post(stack, '/exchange/v1/trading/orders', order, client, headers);
const trips = async (stack: Stack) =>
  Number(
    (await (await fetch(`${stack.url}/metrics`)).text()).match(
      /^gateway_risk_breaker_trips_total\{client="storm"\} (\d+)/m,
    )?.[1] ?? 0,
  );

describe('reject breaker: a client whose orders the exchange keeps rejecting is blocked on every instance', () => {
  let a: Stack;
  let b: Stack;
  const prefix = `breaker${process.pid}:`;

  beforeAll(async () => {
    a = await startExchangeStack(CLIENTS, { redis: true, redisKeyPrefix: prefix, gateway: withBreaker });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      redisKeyPrefix: prefix,
      reuseSandbox: a.sandbox,
      gateway: withBreaker,
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('trips after N upstream rejects within M s (counted across instances), refuses new orders with RISK_BREAKER_OPEN, lets cancels and other clients through, and is reset by an admin with a reason', async () => {
    const resting = await insert(a, limit('SIDE_BUY', 1, 10, { clordId: 'storm-own' }), 'storm');
    expect(resting.status).toBe(200);
    const { orderId } = await json(resting);
    // Another team's working order holds a clordId on the participant: the gateway leaves that clordId to
    // the exchange (it sends a clordId once a key lifetime per team), which refuses it 409 while the order works.
    const held = await insert(a, limit('SIDE_BUY', 1, 10, { clordId: 'storm-dup' }), 'all', {
      'x-participant-id': PARTICIPANT,
    });
    expect(held.status).toBe(200);

    // Each insert under that clordId and a new Idempotency-Key reaches the exchange and is rejected.
    for (let i = 1; i <= TRIP_AT; i++) {
      const rejected = await insert(i % 2 ? a : b, limit('SIDE_BUY', 1, 10, { clordId: 'storm-dup' }), 'storm', {
        'idempotency-key': `storm-resend-${i}`,
      });
      expect({ i, status: rejected.status }).toEqual({ i, status: 409 });
    }

    const sent = upstreamCalls(a);
    // The rejects came through both instances; the one that counted the last tripped the breaker for both.
    const refused = await insert(b, limit('SIDE_BUY', 1, 11, { clordId: 'storm-next' }), 'storm');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const problem = await json(refused);
    expect(problem).toMatchObject({
      code: 'RISK_BREAKER_OPEN',
      scope: 'client:storm',
      limit: TRIP_AT,
      windowSeconds: 60,
      observed: TRIP_AT,
    });
    expect(Date.parse(problem.until)).toBeGreaterThan(Date.now());
    const seenOnA = await eventually(
      () => insert(a, limit('SIDE_BUY', 1, 11, { clordId: 'storm-a' }), 'storm').then((res) => res.status),
      (status) => status === 403,
      3_000,
    );
    expect(seenOnA).toBe(403);
    expect(upstreamCalls(a)).toBe(sent);
    console.log(
      `breaker: tripped after ${TRIP_AT} upstream rejects (409) split across two instances; refused on both, nothing sent`,
    );

    // Another client of the same team and participant trades on; the blocked client's cancel passes.
    expect((await insert(a, limit('SIDE_BUY', 1, 12, { clordId: 'calm-1' }), 'calm')).status).toBe(200);
    expect((await post(b, '/exchange/v1/trading/orders/cancel', { orderId }, 'storm')).status).toBe(200);
    expect(a.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });

    expect((await trips(a)) + (await trips(b))).toBe(1);
    const view = await json(await api(a)('/admin/risk'));
    expect(view.breakers).toEqual([expect.objectContaining({ client: 'storm', limit: TRIP_AT, observed: TRIP_AT })]);

    // Reset: an admin only, with a reason; journaled; every instance lets the client trade again.
    expect((await post(b, '/admin/risk/breakers/reset', { client: 'storm' })).status).toBe(400);
    expect(
      (await post(b, '/admin/risk/breakers/reset', { client: 'storm', reason: 'resend loop fixed' }, 'storm')).status,
    ).toBe(403);
    const reset = await post(b, '/admin/risk/breakers/reset', { client: 'storm', reason: 'resend loop fixed' });
    expect(reset.status).toBe(200);
    expect(await json(reset)).toMatchObject({
      client: 'storm',
      was: { client: 'storm', limit: TRIP_AT },
      journaled: true,
    });
    const after = await eventually(
      () => post(a, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 1, 13), 'storm').then((res) => res.status),
      (status) => status === 200,
      3_000,
    );
    expect(after).toBe(200);
    expect((await insert(a, limit('SIDE_BUY', 1, 13, { clordId: 'storm-after' }), 'storm')).status).toBe(200);
  });

  it('counts a retail order answered 200 but rejected (unknown market) as a reject too', async () => {
    for (let i = 1; i <= RETAIL_TRIP_AT; i++) {
      const res = await post(a, '/retail/v1/orders', retailOrder('no-such-market'), 'shop');
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
      expect((await json(res)).executions).toEqual([expect.objectContaining({ type: 'EXECUTION_TYPE_REJECTED' })]);
    }
    const refused = await post(a, '/retail/v1/orders', retailOrder('aec-nfl-gb-chi-2026-11-22'), 'shop');
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({
      code: 'RISK_BREAKER_OPEN',
      scope: 'client:shop',
      limit: RETAIL_TRIP_AT,
      observed: RETAIL_TRIP_AT,
    });
  });
});
