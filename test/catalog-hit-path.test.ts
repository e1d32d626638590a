import { connect } from 'node:net';

import { type Stack, api, eventually, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// The catalog's hit path (CatalogFastPath): a repeated cache hit is answered before Fastify, and
// answered exactly as Fastify would (same headers in the same order, same bytes, the hit counted,
// the access line written), while everything else still goes the whole way: no key or a bad key
// (401), a client without the route's scope (403), a stale entry (served stale and refreshed), an
// exhausted inbound rate (429), a conditional request (304).
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SPORTS = '/catalog/v1/sports';
/** Over the inbound burst (below) the limited client gets 429, whichever path answers. */
const BURST = 20;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    gateway: (config: GatewayConfigInput): GatewayConfigInput => ({
      ...config,
      // Sports go stale after a second (the refresh test); events stay fresh.
      catalog: { ttlSeconds: { sports: 1, events: 3_600 }, staleWhileRevalidateSeconds: 60 },
      inbound: { perClientBurst: BURST, perClientPerSecond: 0.5 },
    }),
    sandbox: { catalog: { requestsPerSecondPerAddress: 'off' } },
    clients: [
      { id: 'reader', scopes: ['read:instruments'] },
      { id: 'quotes', scopes: ['read:marketdata'] },
      { id: 'limited', scopes: ['read:instruments'] },
    ],
  });
});
afterAll(() => stack.close());

/** A sample's value; `absent` when the series is not exposed (yet). */
async function metric(name: string, absent = Number.NaN): Promise<number> {
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? absent : Number(line.slice(line.lastIndexOf(' ') + 1));
}
const earlyHits = () => metric('catalog_cache_early_hits_total');
const ownHeads = () => metric('catalog_cache_early_hit_heads_total');
const countedHits = (route: string) => metric(`catalog_cache_requests_total{route="${route}",result="hit"}`, 0);

/**
 * Sends `requests` on one connection at once (pipelined) and reads the raw answers, each as its head
 * and body bytes; `closed` says whether the server ended the connection after the last.
 */
async function rawExchange(
  requests: string[],
): Promise<{ answers: { head: string; body: string }[]; closed: boolean }> {
  const { hostname, port } = new URL(stack.url);
  const socket = connect(Number(port), hostname);
  let received = Buffer.alloc(0);
  const answers: { head: string; body: string }[] = [];
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = received.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (received.length < end + 4 + length) break;
        answers.push({ head, body: received.subarray(end + 4, end + 4 + length).toString('utf8') });
        received = received.subarray(end + 4 + length);
      }
      if (answers.length === requests.length) resolve();
    });
    socket.write(requests.join(''));
  });
  const ended = await Promise.race([closed.then(() => true), sleep(1_000).then(() => false)]);
  socket.destroy();
  return { answers, closed: ended };
}
/** The head with its per-second values (Date, Age) blanked: what two answers of the same entry must share byte for byte. */
const steady = (head: string) => head.replace(/\r\nDate: [^\r]+/, '\r\nDate: -').replace(/\r\nage: \d+/, '\r\nage: -');

/** Every response header but the date, in the order sent. */
const headersOf = (res: Response) => [...res.headers].filter(([name]) => name !== 'date');

describe('the catalog hit path', () => {
  it('answers a repeated hit before Fastify with the headers and bytes Fastify sends, counted and logged', async () => {
    const path = '/catalog/v1/events?limit=3&active=true';
    const miss = await api(stack, 'reader')(path, { headers: { 'x-request-id': 'hit-path-miss' } });
    expect(miss.headers.get('x-cache')).toBe('MISS');
    const body = await miss.text();
    const [earlyBefore, hitsBefore] = [await earlyHits(), await countedHits('events')];
    // A non-matching If-None-Match sends the hit through Fastify; the plain request takes the hit path.
    const viaFastify = await api(stack, 'reader')(path, {
      headers: { 'x-request-id': 'hit-path-same', 'if-none-match': '"other"' },
    });
    const early = await api(stack, 'reader')(path, { headers: { 'x-request-id': 'hit-path-same' } });
    expect(early.status).toBe(200);
    expect(headersOf(early)).toEqual(headersOf(viaFastify));
    expect(early.headers.get('x-cache')).toBe('HIT');
    expect(await early.text()).toBe(body);
    expect(await viaFastify.text()).toBe(body);
    expect((await earlyHits()) - earlyBefore).toBe(1);
    expect((await countedHits('events')) - hitsBefore).toBe(2);
    // Its access line is Fastify's: both requests carry one request id, and both are written the same way.
    const accessLines = () =>
      stack.logs.filter((l) => l.includes('"requestId":"hit-path-same"') && l.includes('"log":"access"'));
    await eventually(
      async () => accessLines().length,
      (n) => n === 2,
    );
    for (const line of accessLines())
      expect(JSON.parse(line)).toMatchObject({
        level: 30,
        method: 'GET',
        url: path,
        client: 'reader',
        status: 200,
        msg: 'request completed',
      });
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    expect(metrics).toMatch(
      /gateway_http_request_duration_seconds_count\{method="GET",route="\/catalog\/v1\/events",status="200"\} \d+/,
    );
  });

  it('still refuses a request without a valid key (401) or without the scope (403) for a target it serves', async () => {
    const path = '/catalog/v1/events?limit=4';
    await api(stack, 'reader')(path);
    expect((await api(stack, 'reader')(path)).headers.get('x-cache')).toBe('HIT');
    const before = await earlyHits();
    const anonymous = await fetch(`${stack.url}${path}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(
      (await fetch(`${stack.url}${path}`, { headers: { authorization: 'Bearer pmgw_not_a_key_not_a_key_not_a_key' } }))
        .status,
    ).toBe(401);
    const unscoped = await api(stack, 'quotes')(path);
    expect(unscoped.status).toBe(403);
    expect(await json(unscoped)).toMatchObject({ missingScope: 'read:instruments' });
    expect((await earlyHits()) - before).toBe(0);
  });

  // Node keeps the first of two Authorization headers; a proxy in front may act on the last. The whole path
  // refuses them (400): the hit path must not serve the first key's hit instead.
  it('refuses two Authorization headers on a target it serves: 400 naming the header, no hit', async () => {
    const path = '/catalog/v1/events?limit=6';
    await api(stack, 'reader')(path);
    expect((await api(stack, 'reader')(path)).headers.get('x-cache')).toBe('HIT');
    const before = await earlyHits();
    const { hostname, port } = new URL(stack.url);
    const { answers } = await rawExchange([
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${stack.keys.reader}\r\n` +
        `Authorization: Bearer ${stack.keys.quotes}\r\nConnection: close\r\n\r\n`,
    ]);
    expect(answers[0]?.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(answers[0]?.head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(JSON.parse(answers[0]?.body ?? '{}')).toMatchObject({ errors: [{ path: 'headers.authorization' }] });
    expect((await earlyHits()) - before).toBe(0);
  });

  it('answers If-None-Match with 304 and HEAD with 405, as before', async () => {
    const path = '/catalog/v1/events?limit=5';
    const first = await api(stack, 'reader')(path);
    const etag = first.headers.get('etag') as string;
    expect((await api(stack, 'reader')(path, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await api(stack, 'reader')(path, { method: 'HEAD' })).status).toBe(405);
  });

  it('serves a stale entry through the whole path, which refreshes it once', async () => {
    const before = stack.sandbox.state.counter('catalog.sports');
    await api(stack, 'reader')(SPORTS);
    expect((await api(stack, 'reader')(SPORTS)).headers.get('x-cache')).toBe('HIT');
    await sleep(1_100);
    const stale = await api(stack, 'reader')(SPORTS);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    await eventually(
      async () => (await api(stack, 'reader')(SPORTS)).headers.get('x-cache'),
      (cache) => cache === 'HIT',
    );
    expect(stack.sandbox.state.counter('catalog.sports')).toBe(before + 2);
  });

  it("spends the client's inbound rate on every hit it answers", async () => {
    const path = '/catalog/v1/events?limit=6';
    const statuses: number[] = [];
    for (let i = 0; i < BURST + 10; i++) {
      const res = await api(stack, 'limited')(path);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    const ok = statuses.filter((s) => s === 200).length;
    // The burst, plus what half a token a second refills while the loop runs.
    expect(ok).toBeGreaterThanOrEqual(BURST);
    expect(ok).toBeLessThan(BURST + 10);
    expect(statuses.slice(ok)).toContain(429);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  });

  it('writes the bytes Node writes for Fastify, on kept-alive, pipelined and closing connections', async () => {
    const path = '/catalog/v1/events?limit=7';
    await api(stack, 'reader')(path);
    expect((await api(stack, 'reader')(path)).headers.get('x-cache')).toBe('HIT');
    const { hostname, port } = new URL(stack.url);
    const request = (extra = '') =>
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${stack.keys.reader}\r\n` +
      `x-request-id: raw-bytes\r\n${extra}\r\n`;
    const [before, ownBefore] = [await earlyHits(), await ownHeads()];
    // Fastify's answer first (a non-matching If-None-Match goes through Fastify), then hits pipelined behind it.
    const kept = await rawExchange([request('If-None-Match: "other"\r\n'), request(), request(), request()]);
    expect((await earlyHits()) - before).toBe(3);
    // The gateway wrote those heads itself (an earlier hit's head, written by Node, was checked against its own).
    expect((await ownHeads()) - ownBefore).toBe(3);
    const [viaFastify, ...hits] = kept.answers;
    expect(viaFastify.head).toMatch(
      /^HTTP\/1\.1 200 OK\r\nx-request-id: raw-bytes\r\n.*\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} [\d:]{8} GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=\d+$/s,
    );
    for (const hit of hits) {
      expect(steady(hit.head)).toBe(steady(viaFastify.head));
      expect(hit.body).toBe(viaFastify.body);
    }
    expect(kept.closed).toBe(false);
    // A client that closes: the hit says so and the server ends the connection, as Node does for Fastify's answers.
    const closing = await rawExchange([request('Connection: close\r\n')]);
    expect(steady(closing.answers[0].head)).toBe(
      steady(viaFastify.head).replace(/Connection: keep-alive\r\nKeep-Alive: timeout=\d+$/, 'Connection: close'),
    );
    expect(closing.answers[0].body).toBe(viaFastify.body);
    expect(closing.closed).toBe(true);
    // A closing connection's head is Node's.
    expect((await ownHeads()) - ownBefore).toBe(3);
    expect(stack.logs.filter((l) => l.includes("Node's response head is not the one"))).toEqual([]);
  });
});
