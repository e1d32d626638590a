import { type Stack, api, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/**
 * GET /exchange/v1/health spends `exchange.public`; here slowed to 20 per hour (18 with the 0.9 margin, refilling
 * one token per 200 s) so counts are exact and an emptied bucket stays empty however slowly a busy machine runs the tests.
 */
const slowPublicBucket = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  // The stack's test limits kept (a Redis budget answer may be as late as the tests' command timeout): a late answer,
  // refused by design, would take one of the 18 the first test counts.
  limits: { ...config.limits, buckets: { 'exchange.public': { limit: 20, windowSeconds: 3_600 } } },
});

describe('upstream budget at the gateway', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      redis: true,
      clients: [{ id: 'reader', scopes: ['read:marketdata'] }],
      gateway: slowPublicBucket,
    });
  });
  afterAll(() => stack.close());

  it('answers 429 naming the bucket, with Retry-After and RateLimit headers, before sending', async () => {
    const responses = await Promise.all(Array.from({ length: 40 }, () => api(stack)('/exchange/v1/health')));
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(40);
    expect(ok.length).toBeGreaterThanOrEqual(18);
    expect(ok.length).toBeLessThanOrEqual(19); // a burst stretched past 200 s by a stalled machine may see one token back
    expect(ok[0].headers.get('ratelimit-policy')).toMatch(/"exchange\.public";q=18;w=3600/);
    expect(ok[0].headers.get('ratelimit')).toMatch(/"exchange\.public";r=\d+;t=\d+/);
    const problem = await json(limited[0]);
    expect(problem).toMatchObject({ status: 429, code: 'RATE_LIMITED', bucket: 'exchange.public' });
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0].headers.get('content-type')).toContain('application/problem+json');
  });

  it('refuses at once when the wait needed exceeds what the client allows', async () => {
    // Empty the bucket here (it may be full when this test runs alone): a 429 says less than one token is left, and
    // at one token per 200 s the next needs far more than the 1 s the client allows, however late it is asked.
    const draining = await Promise.all(Array.from({ length: 20 }, () => api(stack)('/exchange/v1/health')));
    expect(draining.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    const res = await api(stack)('/exchange/v1/health', { headers: { prefer: 'wait=1' } });
    expect(res.status).toBe(429);
    expect(await json(res)).toMatchObject({ code: 'RATE_LIMITED', bucket: 'exchange.public' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(1);
  });

  it('shows every bucket to admins only', async () => {
    const view = await json(await api(stack)('/admin/limits'));
    const text = JSON.stringify(view);
    expect(text).toContain('exchange.public');
    expect(text).toContain('retail.orders.create');
    expect((await api(stack, 'reader')('/admin/limits')).status).toBe(403);
  });
});

describe('Prefer: wait', () => {
  it('queues instead of refusing when the client prefers to wait', async () => {
    const stack = await startStack({ redis: true });
    try {
      const responses = await Promise.all(
        Array.from({ length: 30 }, () => api(stack)('/exchange/v1/health', { headers: { prefer: 'wait=5' } })),
      );
      expect(responses.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
      expect(responses[0].headers.get('preference-applied')).toBe('wait=5');
      // A route that spends no budget applies no wait, so it does not claim to (RFC 7240).
      const unbudgeted = await api(stack)('/exchange/v1/whoami', { headers: { prefer: 'wait=5' } });
      expect(unbudgeted.status).toBe(200);
      expect(unbudgeted.headers.get('preference-applied')).toBeNull();
    } finally {
      await stack.close();
    }
  });

  it('says the wait was applied on a 429 after queueing too', async () => {
    const stack = await startStack();
    try {
      // Open-order reads: 55 per 10 s with a burst of 2, so most of ten at once need far more than the 1 ms they may wait.
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => api(stack)('/retail/v1/orders/open', { headers: { prefer: 'wait=0.001' } })),
      );
      const refused = responses.filter((r) => r.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect(r.headers.get('preference-applied')).toBe('wait=0.001');
    } finally {
      await stack.close();
    }
  });
});
