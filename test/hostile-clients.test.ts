import { connect, type Socket } from 'node:net';

import { type RawResponse, rawRequest } from './support/raw-http.js';
import { type Stack, api, eventually, startStack } from './support/stack.js';
import { RefusedUpgrade, WsTestClient } from './support/ws-client.js';

/** Sandbox counters that move when a request reaches an upstream. */
const upstreamCalls = (stack: Stack) =>
  Object.entries(stack.sandbox.state.counterSnapshot())
    .filter(([name]) => /^(exchange\.calls|retail\.route|catalog)\./.test(name))
    .reduce((sum, [, n]) => sum + n, 0);

/** A problem document with the request id both in the header and in the body. */
function expectProblem(res: RawResponse, status: number): Record<string, unknown> {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status,
    type: expect.stringMatching(/^application\/problem\+json/),
  });
  const problem = JSON.parse(res.text) as Record<string, unknown>;
  expect(typeof res.headers['x-request-id']).toBe('string');
  expect(problem).toMatchObject({ status, requestId: res.headers['x-request-id'] });
  return problem;
}

/** Writes raw bytes on a fresh connection and collects what comes back until the server closes it. */
function rawExchange(url: string, bytes: string): { socket: Socket; closed: Promise<string> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  socket.write(bytes);
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(received))) };
}

/** Parses a raw HTTP/1.1 response (no chunked bodies: problem answers carry Content-Length). */
function parseRaw(text: string): RawResponse {
  const [head, ...body] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text: body.join('\r\n\r\n') };
}

describe('hostile clients', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      gateway: (config) => ({
        ...config,
        server: { ...config.server, headersTimeoutMs: 600, requestTimeoutMs: 1_200, idleTimeoutMs: 5_000 },
      }),
    });
  });
  afterAll(() => stack.close());

  describe('nothing is parsed for a caller that has not authenticated', () => {
    it('answers 401 to a body it never parses (broken JSON, 5,000 levels deep) and 400 to the same body with a key', async () => {
      const deep = '['.repeat(5_000) + ']'.repeat(5_000);
      const before = upstreamCalls(stack);
      const anonymous = await rawRequest(
        stack.url,
        'POST',
        '/exchange/v1/positions/balance',
        { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1' },
        '{"broken":',
      );
      expectProblem(anonymous, 401);
      const keyed = await rawRequest(
        stack.url,
        'POST',
        '/exchange/v1/refdata/symbols',
        { 'content-type': 'application/json', authorization: `Bearer ${stack.keys.all}` },
        deep,
      );
      expect(expectProblem(keyed, 400).detail).toBe('The JSON body nests deeper than 32 levels.');
      expect(upstreamCalls(stack)).toBe(before);
    });
  });

  describe('failed logins', () => {
    it('admits the right key after 25 wrong ones from the same address, over HTTP, /ws/tickets and the WebSocket upgrade', async () => {
      const failures: number[] = [];
      for (let i = 0; i < 25; i++)
        failures.push(
          (
            await fetch(`${stack.url}/me`, {
              headers: { authorization: `Bearer pmgw_wrong${i}-wrong-wrong-wrong-wrong-0` },
            })
          ).status,
        );
      // 20 failures a minute per address (one went to the test before): then further failures are slowed.
      expect(failures[0]).toBe(401);
      expect(failures.slice(-5)).toEqual([429, 429, 429, 429, 429]);
      // Still failing: slowed. The right key: admitted, on every door.
      expect(
        (
          await fetch(`${stack.url}/me`, {
            headers: { authorization: 'Bearer pmgw_wrong99-wrong-wrong-wrong-wrong-0' },
          })
        ).status,
      ).toBe(429);
      expect((await api(stack)('/me')).status).toBe(200);
      const ticket = await api(stack)('/ws/tickets', { method: 'POST' });
      expect(ticket.status).toBe(201);
      (await WsTestClient.open(stack.url, { key: stack.keys.all })).close();
      (await WsTestClient.open(stack.url, { ticket: ((await ticket.json()) as { ticket: string }).ticket })).close();
    });
  });

  describe('slow clients are cut', () => {
    it('closes a connection whose headers trickle in, with a 408 problem', async () => {
      const { socket, closed } = rawExchange(stack.url, 'GET /me HTTP/1.1\r\nHost: x\r\n');
      // One header byte every 100 ms: 20 s for the whole header block, far past headersTimeoutMs.
      const drip = setInterval(() => socket.writable && socket.write('x'), 100);
      const answer = parseRaw(await closed);
      clearInterval(drip);
      expectProblem(answer, 408);
    });

    it('closes a connection whose body trickles in, with a 408 problem', async () => {
      const head = `POST /exchange/v1/refdata/symbols HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.keys.all}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{`;
      const { socket, closed } = rawExchange(stack.url, head);
      const drip = setInterval(() => socket.writable && socket.write(' '), 100);
      const answer = parseRaw(await closed);
      clearInterval(drip);
      expectProblem(answer, 408);
    });
  });

  describe("errors Fastify and Node's HTTP parser answer before any route", () => {
    const send = (raw: string) => rawExchange(stack.url, raw).closed.then(parseRaw);

    it.each([
      ['an undecodable URL', 'GET /exchange/v1/orderbook/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400],
      [
        'a path parameter over the length limit',
        `GET /exchange/v1/orderbook/${'A'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        414,
      ],
      ['headers over the size limit', `GET /me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['a Content-Length that is no number', 'POST /me HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
      ['an obs-fold header', 'GET /me HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n', 400],
      ['a CR inside a header value', 'GET /me HTTP/1.1\r\nHost: x\r\nX-Bad: a\rb\r\n\r\n', 400],
      // Node hands CONNECT to the server's 'connect' event, never to Fastify: the socket used to close unanswered.
      [
        'a CONNECT (a proxy tunnel)',
        'CONNECT upstream.example:443 HTTP/1.1\r\nHost: upstream.example:443\r\n\r\n',
        405,
      ],
    ])('answers %s with a problem document', async (_, raw, status) => {
      const problem = expectProblem(await send(raw), status);
      expect(JSON.stringify(problem)).not.toContain('A'.repeat(101));
    });
  });

  describe('WebSocket upgrades', () => {
    const send = (raw: string) => rawExchange(stack.url, raw).closed.then(parseRaw);
    const upgrade = (target: string, headers: string) =>
      `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n${headers}\r\n`;
    const handshake =
      'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

    // A request target WHATWG URL refuses, on an upgrade: its rejection escaped the handler and ended the process.
    it.each(['//', '//[', '//a:b@'])(
      'answers the target %s with 404, before any key, and keeps serving',
      async (target) => {
        expectProblem(await send(upgrade(target, handshake)), 404);
        expect((await fetch(`${stack.url}/health/live`)).status).toBe(200);
      },
    );

    it.each([
      ['no Sec-WebSocket-Key', 'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n', 400, 'headers.sec-websocket-key'],
      [
        'a Sec-WebSocket-Key that is not 16 bytes',
        `Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: abc\r\n`,
        400,
        'headers.sec-websocket-key',
      ],
      [
        'Upgrade: foo',
        'Upgrade: foo\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
        400,
        'headers.upgrade',
      ],
      [
        'Sec-WebSocket-Version: 99',
        'Upgrade: websocket\r\nSec-WebSocket-Version: 99\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
        400,
        'headers.sec-websocket-version',
      ],
    ])(
      'answers a handshake with %s with a problem naming the header (after the key)',
      async (_, headers, status, path) => {
        const auth = `Authorization: Bearer ${stack.keys.all}\r\n`;
        const problem = expectProblem(await send(upgrade('/ws', headers + auth)), status);
        expect(problem.errors).toEqual([expect.objectContaining({ path })]);
        // Without a key nothing of the handshake is judged: a 401, or a 429 once this address has failed
        // too many logins (the failed-login tests above share it), never the handshake's 400.
        const anonymous = await send(upgrade('/ws', headers));
        expect([401, 429]).toContain(anonymous.status);
        expectProblem(anonymous, anonymous.status);
      },
    );

    it('opens /ws named in absolute form (GET http://host/ws), as any HTTP/1.1 server must take it', async () => {
      const { socket, closed } = rawExchange(
        stack.url,
        upgrade('http://127.0.0.1/ws', `${handshake}Authorization: Bearer ${stack.keys.all}\r\n`),
      );
      const head = await new Promise<string>((resolve) =>
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString())),
      );
      socket.destroy();
      await closed;
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
    });

    it('answers a POST upgrade to /ws with 405 and Allow: GET', async () => {
      const raw = `POST /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n${handshake}Authorization: Bearer ${stack.keys.all}\r\nContent-Length: 0\r\n\r\n`;
      const res = await send(raw);
      expectProblem(res, 405);
      expect(res.headers.allow).toBe('GET');
    });
  });

  describe('/docs', () => {
    it.each([
      ['/docs/package.json', 404],
      ['/docs/%2e%2e/package.json', 404],
      ['/docs/..%5cpackage.json', 404],
      ['/docs/%00', 404],
      ['/docs/swagger-ui.js.map', 404],
      ['/docs/absolute-path.js', 404],
    ])('serves nothing of swagger-ui-dist but the page needs: %s → %i problem', async (path, status) => {
      expectProblem(await rawRequest(stack.url, 'GET', path, {}), status);
    });

    it('keeps the status of conditional and range requests on the files it serves', async () => {
      expect((await rawRequest(stack.url, 'GET', '/docs/swagger-ui.css', {})).status).toBe(200);
      expect((await rawRequest(stack.url, 'GET', '/docs', {})).status).toBe(200);
      expectProblem(await rawRequest(stack.url, 'GET', '/docs/swagger-ui.css', { range: 'bytes=99999999-' }), 416);
      expectProblem(await rawRequest(stack.url, 'GET', '/docs/swagger-ui.css', { 'if-match': '"no-such-etag"' }), 412);
    });
  });

  it('answers HEAD on an API route with 405 and spends nothing upstream', async () => {
    const before = upstreamCalls(stack);
    const res = await rawRequest(stack.url, 'HEAD', '/exchange/v1/orderbook/SYM-1', {
      authorization: `Bearer ${stack.keys.all}`,
    });
    expect({ status: res.status, allow: res.headers.allow, id: typeof res.headers['x-request-id'] }).toEqual({
      status: 405,
      allow: 'GET',
      id: 'string',
    });
    expect(upstreamCalls(stack)).toBe(before);
    expect((await rawRequest(stack.url, 'HEAD', '/health/live', {})).status).toBe(200);
  });
});

describe('failed WebSocket tickets', () => {
  it('count as failed logins, and slow further failures but never a valid ticket', async () => {
    const stack = await startStack({
      gateway: (config) => ({ ...config, inbound: { ...config.inbound, failedAuthPerIpPerMinute: 2 } }),
    });
    const upgrade = async (options: { ticket?: string; key?: string }) => {
      try {
        (await WsTestClient.open(stack.url, options)).close();
        return 101;
      } catch (error) {
        if (!(error instanceof RefusedUpgrade)) throw error;
        return error.status;
      }
    };
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await upgrade({ ticket: `forged-ticket-${i}-forged-ticket` }));
      expect(statuses).toEqual([401, 401, 429]);
      // One count for tickets and keys alike.
      expect(
        (
          await fetch(`${stack.url}/me`, {
            headers: { authorization: 'Bearer pmgw_guess-guess-guess-guess-guess-000' },
          })
        ).status,
      ).toBe(429);
      const ticket = (await (await api(stack)('/ws/tickets', { method: 'POST' })).json()) as { ticket: string };
      expect(await upgrade({ ticket: ticket.ticket })).toBe(101);
    } finally {
      await stack.close();
    }
  });
});

describe('connection cap', () => {
  it('refuses connections past server.maxConnections and serves again once they close', async () => {
    const stack = await startStack({
      gateway: (config) => ({ ...config, server: { ...config.server, maxConnections: 3 } }),
    });
    try {
      const held = [0, 1, 2].map(() => rawExchange(stack.url, 'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n'));
      await eventually(
        () => connectionCount(stack),
        (n) => n === 3,
      );
      const extra = rawExchange(stack.url, 'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await extra.closed).toBe('');
      for (const { socket } of held) socket.destroy();
      await eventually(
        () => connectionCount(stack),
        (n) => n === 0,
      );
      expect((await fetch(`${stack.url}/health/live`)).status).toBe(200);
    } finally {
      await stack.close();
    }
  });
});

function connectionCount(stack: Stack): Promise<number> {
  return new Promise((resolve, reject) =>
    stack.gateway.getHttpServer().getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}
