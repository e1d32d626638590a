import { closeGracefully } from '../apps/gateway/src/gateway.factory.js';
import { type Stack, api, eventually, json, startStack } from './support/stack.js';

describe('gateway foundation', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ redis: true, clients: [{ id: 'reader', scopes: ['read:marketdata'] }] });
  });
  afterAll(() => stack.close());

  it('is live and ready with Redis up', async () => {
    const live = await fetch(`${stack.url}/health/live`);
    expect(live.status).toBe(200);
    const ready = await eventually(
      async () => json(await fetch(`${stack.url}/health/ready`)),
      (body) => body.status === 'ok',
    );
    expect(ready).toMatchObject({
      status: 'ok',
      info: { redis: { status: 'up' }, 'exchange-token': { status: 'up' } },
    });
  });

  it('answers 401 problem+json without a key', async () => {
    const res = await fetch(`${stack.url}/me`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await json(res);
    expect(problem).toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
      title: expect.any(String),
      type: expect.any(String),
    });
    expect(problem.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('answers 401 for a wrong key and for a malformed header', async () => {
    for (const authorization of ['Bearer pmgw_not-a-real-key-at-all-0000000000', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await fetch(`${stack.url}/me`, { headers: { authorization } });
      expect(res.status).toBe(401);
      expect((await json(res)).code).toBe('UNAUTHENTICATED');
    }
  });

  it('answers /me with the caller identity', async () => {
    const res = await api(stack, 'reader')('/me');
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: 'reader', team: 'platform', scopes: ['read:marketdata'] });
  });

  it('answers 403 naming the missing scope', async () => {
    const res = await api(stack, 'reader')('/admin/clients');
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({
      code: 'FORBIDDEN',
      missingScope: 'admin',
      detail: expect.stringContaining('admin'),
    });
  });

  it('shows clients to an admin without their key hashes', async () => {
    const res = await api(stack)('/admin/clients');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text).clients.map((c: { id: string }) => c.id)).toEqual(['all', 'reader']);
    expect(text).not.toContain('sha256:');
  });

  it('answers unknown routes with a 404 problem', async () => {
    const res = await api(stack)('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(res)).code).toBe('NOT_FOUND');
  });

  it('echoes a well-formed request id and replaces a malformed one', async () => {
    const given = await fetch(`${stack.url}/health/live`, { headers: { 'x-request-id': 'trace-42' } });
    expect(given.headers.get('x-request-id')).toBe('trace-42');
    const replaced = await fetch(`${stack.url}/health/live`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('exposes process metrics and the request histogram by route template and status', async () => {
    await api(stack)('/me');
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toMatch(/gateway_http_request_duration_seconds_count\{method="GET",route="\/me",status="200"\} \d+/);
  });

  it('serves the OpenAPI document and its UI', async () => {
    const doc = await json(await fetch(`${stack.url}/docs/json`));
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/me', '/health/ready', '/admin/clients']));
    const ui = await fetch(`${stack.url}/docs`);
    expect(ui.status).toBe(200);
    expect(ui.headers.get('content-type')).toContain('text/html');
  });
});

describe('inbound abuse limits', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      gateway: (config) => ({
        ...config,
        inbound: { perClientBurst: 3, perClientPerSecond: 0.01, failedAuthPerIpPerMinute: 2 },
      }),
    });
  });
  afterAll(() => stack.close());

  it('limits each client in process and says which limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(stack)('/me')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await api(stack)('/me');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await json(res)).toMatchObject({ code: 'RATE_LIMITED', bucket: 'inbound.client' });
  });

  it('slows key guessing from one address, even with a right key afterwards', async () => {
    const wrong = { authorization: 'Bearer pmgw_guess-guess-guess-guess-guess-000' };
    expect((await fetch(`${stack.url}/me`, { headers: wrong })).status).toBe(401);
    expect((await fetch(`${stack.url}/me`, { headers: wrong })).status).toBe(401);
    const blocked = await fetch(`${stack.url}/me`, { headers: wrong });
    expect(blocked.status).toBe(429);
    expect((await json(blocked)).bucket).toBe('inbound.auth-failures');
  });
});

describe('graceful shutdown', () => {
  it('drains and then refuses new connections', async () => {
    const stack = await startStack({ redis: true });
    const url = stack.url;
    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    expect(await closeGracefully(stack.gateway, 2_000)).toBe(true);
    await expect(fetch(`${url}/health/live`)).rejects.toThrow();
    await stack.sandbox.close();
  });
});

describe('readiness with Redis unreachable', () => {
  it('stays ready but says degraded, and keeps serving', async () => {
    const stack = await startStack({
      gateway: (config) => ({
        ...config,
        redis: { mode: 'single', url: 'redis://127.0.0.1:1', connectTimeoutMs: 200 },
      }),
    });
    try {
      const ready = await eventually(
        () => fetch(`${stack.url}/health/ready`),
        (r) => r.status === 200,
      );
      // The trading states were never read: orders are refused (503 TRADING_STATE_UNKNOWN), but the instance
      // stays in rotation for cancels and reads.
      expect(await json(ready)).toMatchObject({
        status: 'degraded',
        details: { redis: { status: 'degraded' }, 'trading-states': { status: 'degraded' } },
      });
      expect((await api(stack)('/me')).status).toBe(200);
    } finally {
      await stack.close();
    }
  });
});
