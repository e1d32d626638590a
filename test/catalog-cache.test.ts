import { type Stack, api, eventually, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// The catalog cache's behaviour over real HTTP and the run's real Redis: coalescing of concurrent
// misses (within one gateway and across two sharing Redis), stale-while-revalidate, stale-if-error
// and the public budget in front of every upstream call.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withCatalog(catalog: GatewayConfigInput['catalog'], limits?: GatewayConfigInput['limits']) {
  return (config: GatewayConfigInput): GatewayConfigInput => ({ ...config, catalog, ...(limits ? { limits } : {}) });
}

/** Fires `count` identical requests at once and returns each X-Cache value. */
async function burst(stack: Stack, path: string, count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const res = await api(stack)(path);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return res.headers.get('x-cache') as string;
    }),
  );
}

const tally = (values: string[]) =>
  values.reduce<Record<string, number>>((acc, v) => ({ ...acc, [v]: (acc[v] ?? 0) + 1 }), {});

/** One request made the call; every other one shared it, or came late enough to find the entry stored. */
function expectOneMiss(results: string[]): void {
  const { MISS, COALESCED = 0, HIT = 0, ...other } = tally(results);
  expect({ MISS, other }).toEqual({ MISS: 1, other: {} });
  expect(COALESCED + HIT).toBe(results.length - 1);
  expect(COALESCED).toBeGreaterThan(0);
}

describe('request coalescing', () => {
  it.each([
    ['in memory', false],
    ['with Redis', true],
  ])('100 concurrent identical requests on a cold cache make one upstream call (%s)', async (_mode, redis) => {
    const stack = await startStack({ redis });
    try {
      stack.sandbox.state.setFaults({ catalogLatencyMs: 300 });
      const results = await burst(stack, '/catalog/v1/events?limit=7&tagSlug=nfl', 100);
      expect(stack.sandbox.state.counter('catalog.events')).toBe(1);
      expectOneMiss(results);
    } finally {
      await stack.close();
    }
  });

  it('makes one upstream call for 100 requests split over two gateways sharing Redis', async () => {
    const prefix = `t${process.pid}:coalesce:`;
    const first = await startStack({ redis: true, redisKeyPrefix: prefix });
    const second = await startStack({ redis: true, redisKeyPrefix: prefix, reuseSandbox: first.sandbox });
    try {
      first.sandbox.state.setFaults({ catalogLatencyMs: 300 });
      const [a, b] = await Promise.all([
        burst(first, '/catalog/v1/markets?closed=false', 50),
        burst(second, '/catalog/v1/markets?closed=false', 50),
      ]);
      expect(first.sandbox.state.counter('catalog.markets')).toBe(1);
      expectOneMiss([...a, ...b]);
      // The instance that did not lead waited for the leader's result rather than calling itself.
      expect([a, b].filter((results) => !results.includes('MISS'))[0]).toContain('COALESCED');
      // Afterwards both answer from their own copy.
      first.sandbox.state.setFaults({ catalogLatencyMs: 0 });
      expect((await api(second)('/catalog/v1/markets?closed=false')).headers.get('x-cache')).toBe('HIT');
      expect(first.sandbox.state.counter('catalog.markets')).toBe(1);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('tells every instance about a purge, so none keeps serving its local copy', async () => {
    const prefix = `t${process.pid}:purge:`;
    const first = await startStack({ redis: true, redisKeyPrefix: prefix });
    const second = await startStack({ redis: true, redisKeyPrefix: prefix, reuseSandbox: first.sandbox });
    try {
      await api(first)('/catalog/v1/sports');
      expect((await api(second)('/catalog/v1/sports')).headers.get('x-cache')).toBe('HIT');
      expect(
        (await api(first)('/admin/catalog/purge', { method: 'POST', body: JSON.stringify({ route: 'sports' }) }))
          .status,
      ).toBe(200);
      await eventually(
        async () => (await api(second)('/catalog/v1/sports')).headers.get('x-cache'),
        (cache) => cache === 'MISS',
        2_000,
      );
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('stale entries', () => {
  it('serves a stale entry while refreshing it once in the background', async () => {
    const stack = await startStack({
      redis: true,
      gateway: withCatalog({ ttlSeconds: { sports: 1 }, staleWhileRevalidateSeconds: 30 }),
    });
    try {
      const first = await api(stack)('/catalog/v1/sports');
      const etag = first.headers.get('etag');
      await sleep(1_100);
      const stale = await burst(stack, '/catalog/v1/sports', 5);
      expect(stale).toEqual(['STALE', 'STALE', 'STALE', 'STALE', 'STALE']);
      await eventually(
        async () => (await api(stack)('/catalog/v1/sports')).headers.get('x-cache'),
        (cache) => cache === 'HIT',
      );
      expect(stack.sandbox.state.counter('catalog.sports')).toBe(2);
      expect((await api(stack)('/catalog/v1/sports')).headers.get('etag')).toBe(etag);
    } finally {
      await stack.close();
    }
  });

  it('serves a cached entry while the catalog fails, within the stale-if-error window, then the upstream 503', async () => {
    const stack = await startStack({
      redis: true,
      gateway: withCatalog({ ttlSeconds: { sports: 1 }, staleWhileRevalidateSeconds: 0, staleIfErrorSeconds: 2 }),
    });
    try {
      const fresh = await api(stack)('/catalog/v1/sports');
      const body = await fresh.text();
      stack.sandbox.state.setFaults({ catalogDown: true });
      await sleep(1_100);
      const stale = await api(stack)('/catalog/v1/sports');
      expect(stale.status).toBe(200);
      expect(stale.headers.get('x-cache')).toBe('STALE');
      expect(stale.headers.get('etag')).toBe(fresh.headers.get('etag'));
      expect(Number(stale.headers.get('age'))).toBeGreaterThanOrEqual(1);
      expect(await stale.text()).toBe(body);
      const failed = await eventually(
        () => api(stack)('/catalog/v1/sports'),
        (res) => res.status !== 200,
        5_000,
        100,
      );
      expect(failed.status).toBe(503);
      expect(failed.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await json(failed)).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 503 } });
      // A route never cached has nothing to fall back on.
      expect((await api(stack)('/catalog/v1/series')).status).toBe(503);
    } finally {
      await stack.close();
    }
  });
});

describe('public upstream budget', () => {
  it('refuses a miss beyond the catalog.public budget with 429 and Retry-After, sparing the upstream', async () => {
    const limits = { buckets: { 'catalog.public': { limit: 1, windowSeconds: 60, safetyMargin: 1 } } };
    const stack = await startStack({ gateway: withCatalog({ budgetWaitMs: 0 }, limits) });
    try {
      expect((await api(stack)('/catalog/v1/sports')).status).toBe(200);
      const refused = await api(stack)('/catalog/v1/series');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await json(refused)).toMatchObject({ code: 'RATE_LIMITED', bucket: 'catalog.public' });
      expect(stack.sandbox.state.counter('catalog.requests')).toBe(1);
      expect((await api(stack)('/catalog/v1/sports')).status).toBe(200); // hits cost no budget
    } finally {
      await stack.close();
    }
  });
});
