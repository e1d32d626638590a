import { type Stack, api, eventually, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// The catalog through the gateway, on real sockets and the run's real Redis: every route, validation
// before any upstream work, scopes, headers, 304, purge. Coalescing and stale serving are in
// catalog-cache.test.ts.
const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const SETTLED = 'aec-nba-bos-nyk-2026-11-20';
/** Plenty of public budget: these tests make many distinct upstream calls in a burst. */
const roomyBudget = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: { ...config.limits, buckets: { ...config.limits?.buckets, 'catalog.public': { limit: 10_000 } } },
});

let stack: Stack;
const upstreamCalls = () => stack.sandbox.state.counter('catalog.requests');

beforeAll(async () => {
  stack = await startStack({
    redis: true,
    gateway: roomyBudget,
    // The routes are under test here, not the limits: the operator's 20/s per address goes with the budget.
    sandbox: { catalog: { requestsPerSecondPerAddress: 'off' } },
    clients: [
      { id: 'reader', scopes: ['read:instruments'] },
      { id: 'quotes', scopes: ['read:marketdata'] },
    ],
  });
});
afterAll(() => stack.close());

describe('catalog routes through the gateway', () => {
  const ROUTES: [path: string, check: (body: Record<string, unknown>) => unknown][] = [
    ['/catalog/v1/events?limit=2&active=true', (b) => expect(b.events).toHaveLength(2)],
    ['/catalog/v1/events/1001', (b) => expect(b.event).toMatchObject({ id: '1001' })],
    [
      '/catalog/v1/events/slug/nfl-buf-kc-2026-11-22',
      (b) => expect(b.event).toMatchObject({ slug: 'nfl-buf-kc-2026-11-22' }),
    ],
    [
      `/catalog/v1/markets?eventSlug=nfl-buf-kc-2026-11-22&eventSlug=nfl-dal-phi-2026-11-22`,
      (b) => expect(b.markets).toHaveLength(2),
    ],
    ['/catalog/v1/market/id/5001', (b) => expect(b.market).toMatchObject({ slug: SYMBOL })],
    [`/catalog/v1/market/slug/${SYMBOL}`, (b) => expect(b.market).toMatchObject({ id: '5001' })],
    [
      `/catalog/v1/markets/${SYMBOL}/book`,
      (b) => expect(b).toMatchObject({ marketSlug: SYMBOL, state: 'MARKET_STATE_OPEN' }),
    ],
    [`/catalog/v1/markets/${SYMBOL}/bbo`, (b) => expect(b).toMatchObject({ marketSlug: SYMBOL })],
    [`/catalog/v1/markets/${SETTLED}/settlement`, (b) => expect(b).toMatchObject({ marketSlug: SETTLED })],
    ['/catalog/v1/series?active=true', (b) => expect(b.series).toHaveLength(10)],
    ['/catalog/v1/series/id/11', (b) => expect(b.series).toMatchObject({ id: 11 })],
    ['/catalog/v1/sports', (b) => expect(b.sports).toHaveLength(4)],
    [
      '/catalog/v1/sports/teams/provider?league=nfl',
      (b) => expect(Object.keys(b.teams as object).length).toBeGreaterThan(10),
    ],
    ['/catalog/v1/search?query=buf&status=active', (b) => expect((b.events as unknown[]).length).toBeGreaterThan(0)],
    ['/catalog/v2/sports/football', (b) => expect(b.sport).toMatchObject({ slug: 'football' })],
    [
      '/catalog/v2/leagues/nfl/events?limit=2&type=sport&section=general',
      (b) => expect(b).toMatchObject({ league: { slug: 'nfl' } }),
    ],
    [
      '/catalog/v1/sports/11/events?limit=2&excludeEventId=1001',
      (b) => expect(b).toMatchObject({ category: { series: '11' } }),
    ],
  ];

  it.each(ROUTES)('serves GET %s with caching headers', async (path, check) => {
    const res = await api(stack)(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(res.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(res.headers.get('age')).toMatch(/^\d+$/);
    check(await json(res));
  });

  it('passes the upstream bytes through unchanged and answers the second request from the cache', async () => {
    const direct = await (await fetch(`${stack.sandbox.urls.catalog}/v2/sports/hockey`)).text();
    const before = upstreamCalls();
    const first = await api(stack)('/catalog/v2/sports/hockey');
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(await first.text()).toBe(direct);
    const second = await api(stack)('/catalog/v2/sports/hockey');
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(await second.text()).toBe(direct);
    expect(upstreamCalls()).toBe(before + 1);
  });

  it('shares one entry between requests that differ only in parameter order and repeated-key order', async () => {
    await api(stack)('/catalog/v1/events?slug=nfl-sf-sea-2026-11-22&slug=nfl-gb-chi-2026-11-22&limit=5');
    const again = await api(stack)('/catalog/v1/events?limit=5&slug=nfl-gb-chi-2026-11-22&slug=nfl-sf-sea-2026-11-22');
    expect(again.headers.get('x-cache')).toBe('HIT');
  });

  it('answers 304 to a matching If-None-Match, with the validators again', async () => {
    const first = await api(stack)('/catalog/v1/sports');
    const etag = first.headers.get('etag') as string;
    const res = await api(stack)('/catalog/v1/sports', { headers: { 'if-none-match': `"nope", ${etag}` } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('cache-control')).toBe('private, max-age=60');
    expect(res.headers.get('age')).toMatch(/^\d+$/);
    expect((await api(stack)('/catalog/v1/sports', { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('turns an upstream 404 into a 404 problem carrying the upstream body, and caches it', async () => {
    const res = await api(stack)('/catalog/v1/events/999999');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({
      code: 'UPSTREAM_NOT_FOUND',
      upstream: { status: 404, body: { message: 'event 999999 not found' } },
    });
    const before = upstreamCalls();
    expect((await api(stack)('/catalog/v1/events/999999')).status).toBe(404);
    expect(upstreamCalls()).toBe(before);
  });
});

describe('catalog validation, before any cache or upstream work', () => {
  const CASES: [path: string, field: string][] = [
    ['/catalog/v1/events?limit=abc', 'query.limit'], // bad type
    ['/catalog/v1/events?limit=0', 'query.limit'], // below range
    ['/catalog/v1/events?limit=1001', 'query.limit'], // above range
    ['/catalog/v1/events?offset=-1', 'query.offset'],
    ['/catalog/v1/events?active=yes', 'query.active'],
    ['/catalog/v1/events?orderDirection=up', 'query.orderDirection'], // bad enum
    ['/catalog/v1/events?startDateMin=tomorrow', 'query.startDateMin'],
    ['/catalog/v1/events?colour=red', 'query.colour'], // unknown parameter
    ['/catalog/v1/markets?liquidityMin=lots', 'query.liquidityMin'],
    ['/catalog/v1/search?status=open', 'query.status'],
    ['/catalog/v1/search?page=0', 'query.page'],
    ['/catalog/v1/sports/teams/provider?provider=acme', 'query.provider'],
    ['/catalog/v2/leagues/nfl/events?type=season', 'query.type'],
    ['/catalog/v2/leagues/nfl/events?section=hot', 'query.section'],
    ['/catalog/v1/sports?limit=5', 'query.limit'], // a route without parameters refuses any
    ['/catalog/v1/events/abc', 'params.id'],
    ['/catalog/v1/series/id/1.5', 'params.id'],
    ['/catalog/v1/market/slug/..%2F..%2Fadmin', 'params.slug'],
  ];

  it.each(CASES)('GET %s is a 400 naming %s, and costs no upstream call', async (path, field) => {
    const before = upstreamCalls();
    const res = await api(stack)(path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await json(res);
    expect(problem.code).toBe('VALIDATION_FAILED');
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain(field);
    expect(upstreamCalls()).toBe(before);
  });

  it('documents query and path parameters in the OpenAPI document, from the same schemas', async () => {
    const doc = await json(await fetch(`${stack.url}/docs/json`));
    const events = doc.paths['/catalog/v1/events'].get.parameters.map((p: { name: string }) => p.name);
    expect(events).toEqual(
      expect.arrayContaining(['limit', 'offset', 'orderBy', 'slug', 'categories', 'startTimeMax']),
    );
    const book = doc.paths['/catalog/v1/markets/{slug}/book'].get.parameters;
    expect(book).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'slug', in: 'path', required: true })]),
    );
  });
});

describe('catalog authentication and scopes', () => {
  it('is 401 without an API key', async () => {
    const res = await fetch(`${stack.url}/catalog/v1/events`);
    expect(res.status).toBe(401);
  });

  it('needs read:instruments for listings and records', async () => {
    const res = await api(stack, 'quotes')('/catalog/v1/events');
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ missingScope: 'read:instruments' });
    expect((await api(stack, 'quotes')(`/catalog/v1/markets/${SETTLED}/settlement`)).status).toBe(403);
    expect((await api(stack, 'reader')('/catalog/v1/sports')).status).toBe(200);
  });

  it('needs read:marketdata for book and best bid/offer', async () => {
    for (const route of ['book', 'bbo']) {
      const res = await api(stack, 'reader')(`/catalog/v1/markets/${SYMBOL}/${route}`);
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ missingScope: 'read:marketdata' });
      expect((await api(stack, 'quotes')(`/catalog/v1/markets/${SYMBOL}/${route}`)).status).toBe(200);
    }
  });

  it('checks authentication before validation', async () => {
    expect((await fetch(`${stack.url}/catalog/v1/events?limit=0`)).status).toBe(401);
    expect((await api(stack, 'quotes')('/catalog/v1/events?limit=0')).status).toBe(403);
  });
});

describe('catalog purge', () => {
  it('drops a route so the next request goes upstream again', async () => {
    await api(stack)('/catalog/v1/series/id/12');
    expect((await api(stack)('/catalog/v1/series/id/12')).headers.get('x-cache')).toBe('HIT');
    const purge = await api(stack)('/admin/catalog/purge', {
      method: 'POST',
      body: JSON.stringify({ route: 'seriesById' }),
    });
    expect(purge.status).toBe(200);
    expect(await json(purge)).toMatchObject({ purged: { shared: expect.any(Number), local: expect.any(Number) } });
    expect((await api(stack)('/catalog/v1/series/id/12')).headers.get('x-cache')).toBe('MISS');
  });

  it('drops only the keys under a prefix', async () => {
    await api(stack)(`/catalog/v1/markets/${SYMBOL}/book`);
    await api(stack)('/catalog/v1/sports');
    const purge = await api(stack)('/admin/catalog/purge', {
      method: 'POST',
      body: JSON.stringify({ prefix: `/v1/markets/${SYMBOL}` }),
    });
    expect((await json(purge)).purged.shared).toBeGreaterThanOrEqual(1);
    expect((await api(stack)(`/catalog/v1/markets/${SYMBOL}/book`)).headers.get('x-cache')).not.toBe('HIT');
    expect((await api(stack)('/catalog/v1/sports')).headers.get('x-cache')).toBe('HIT');
  });

  it('needs the admin scope and names a route or a prefix', async () => {
    expect(
      (
        await api(stack, 'reader')('/admin/catalog/purge', {
          method: 'POST',
          body: JSON.stringify({ route: 'events' }),
        })
      ).status,
    ).toBe(403);
    expect((await fetch(`${stack.url}/admin/catalog/purge`, { method: 'POST' })).status).toBe(401);
    expect((await api(stack)('/admin/catalog/purge', { method: 'POST', body: '{}' })).status).toBe(400);
    const bad = await api(stack)('/admin/catalog/purge', { method: 'POST', body: JSON.stringify({ route: 'nope' }) });
    expect((await json(bad)).errors[0].path).toBe('body.route');
  });
});

describe('catalog metrics', () => {
  it('counts hits and misses by route', async () => {
    await api(stack)('/catalog/v2/sports/soccer');
    await api(stack)('/catalog/v2/sports/soccer');
    const text = await eventually(
      async () => (await fetch(`${stack.url}/metrics`)).text(),
      (t) => t.includes('catalog_cache_requests_total{route="sport",result="hit"}'),
    );
    expect(text).toMatch(/catalog_cache_requests_total\{route="sport",result="miss"\} \d+/);
    expect(text).toMatch(/catalog_upstream_requests_total\{route="sport",status="200"\} \d+/);
  });
});
