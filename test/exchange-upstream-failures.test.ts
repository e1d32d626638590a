import { exchangeTokenReady, limit, post } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json, startStack } from './support/stack.js';

describe('exchange upstream throttling and timeouts', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      // The sandbox's instrument limit is set below the gateway's own (6/min less its margin), so upstream throttles first.
      sandbox: { exchange: { limits: { instruments: { limit: 2, perSeconds: 60 } } } },
      gateway: (config) => ({ ...config, exchange: { requestTimeoutMs: 300 } }),
    });
    // The token request has its own deadline (exchange.tokenTimeoutMs), not these 300 ms; until a token is
    // had every exchange request is a 503, and what this file tests starts with a token.
    await exchangeTokenReady(stack);
  });
  afterAll(() => stack.close());

  it('turns the upstream 429 into a 429 problem with Retry-After, keeping the upstream body', async () => {
    const statuses = [];
    for (let i = 0; i < 2; i++) {
      const res = await post(stack, '/exchange/v1/refdata/instruments', {});
      statuses.push(res.status === 200 ? 200 : `${res.status} ${(await json(res)).code}`); // a failure names its code
    }
    expect(statuses).toEqual([200, 200]);
    const res = await post(stack, '/exchange/v1/refdata/symbols', {});
    expect(res.status).toBe(429);
    // Upstream's own Retry-After (a token every 30 s at 2 per minute) reaches the client unchanged.
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(25);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({
      code: 'UPSTREAM_RATE_LIMITED',
      upstream: { status: 429, body: { code: 8, message: 'rate limit exceeded', details: [] } },
    });
    expect(stack.sandbox.state.counter('exchange.throttled.instruments')).toBe(1);
  });

  it('answers an insert that times out with 202 PENDING and its clordId, and never sends it again', async () => {
    const { state } = stack.sandbox;
    state.setFaults({ exchangeDelayMs: { insertOrder: 2_500 } });
    try {
      const res = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 20, { clordId: 'slow-1' }));
      // The outcome is UNKNOWN, not an error (issue 27): resolved from the exchange by clordId, readable at the lookup route.
      expect(res.status).toBe(202);
      expect(await json(res)).toMatchObject({ state: 'PENDING', clordId: 'slow-1' });
      // The Location names the call by its key (the gateway's, sent without one), which reads its outcome.
      const key = `clordId:${PARTICIPANT}:slow-1`;
      expect(res.headers.get('location')).toBe(`/orders/key/${encodeURIComponent(key)}`);
      const lookup = await api(stack)(res.headers.get('location')!);
      expect(lookup.status).toBe(200);
      expect(await json(lookup)).toMatchObject({ key, operation: 'exchange.insert' });
      // The exchange processed it late: the order exists, and it was sent exactly once.
      await eventually(
        async () => state.engine.searchOrders({ clordId: 'slow-1' }).order.length,
        (n) => n === 1,
        5_000,
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(state.counter('exchange.calls.insertOrder')).toBe(1);
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
  });

  it('names the clordId it assigned when the order came without one', async () => {
    const { state } = stack.sandbox;
    state.setFaults({ exchangeDelayMs: { insertOrder: 2_500 } });
    try {
      const res = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 20));
      expect(res.status).toBe(202);
      const { clordId } = await json(res);
      expect(clordId).toMatch(/^gw-[0-9a-f-]{36}$/);
      await eventually(
        async () => state.engine.searchOrders({ clordId }).order.length,
        (n) => n === 1,
        5_000,
      );
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
    expect((await api(stack)('/exchange/v1/trading/orders/open')).status).toBe(200);
  });
});
