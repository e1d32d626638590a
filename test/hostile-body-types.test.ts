import { request } from 'node:http';

import { SYMBOL, limit, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { rawRequest } from './support/raw-http.js';
import type { Stack } from './support/stack.js';

// The gateway takes JSON bodies only. Nest's default parsers also took form bodies (an order sent as
// application/x-www-form-urlencoded was placed) and Fastify's took text/plain (a 400 about a string
// body); both are now 415, naming application/json, with nothing sent.

describe('request bodies other than JSON', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack();
  });
  afterAll(() => stack?.close());

  it.each([
    ['application/x-www-form-urlencoded', `side=SIDE_BUY&symbol=${SYMBOL}&orderQty=1&price=11&clordId=form-1`],
    ['text/plain', JSON.stringify(limit('SIDE_BUY', 1, 11, { clordId: 'text-1' }))],
    ['text/plain; charset=utf-8', JSON.stringify(limit('SIDE_BUY', 1, 11, { clordId: 'text-2' }))],
  ])('refuses an order sent as %s: 415 problem naming application/json, nothing sent', async (type, body) => {
    const before = upstreamCalls(stack);
    const res = await rawRequest(
      stack.url,
      'POST',
      '/exchange/v1/trading/orders',
      { authorization: `Bearer ${stack.keys.all}`, 'content-type': type },
      body,
    );
    expect({
      status: res.status,
      type: res.headers['content-type'],
      detail: (JSON.parse(res.text) as { detail?: string }).detail,
    }).toEqual({
      status: 415,
      type: expect.stringMatching(/^application\/problem\+json/),
      detail: 'Send application/json.',
    });
    expect(upstreamCalls(stack) - before).toBe(0);
  });

  it('still takes the same order as JSON', async () => {
    const res = await rawRequest(
      stack.url,
      'POST',
      '/exchange/v1/trading/orders',
      { authorization: `Bearer ${stack.keys.all}`, 'content-type': 'application/json; charset=utf-8' },
      JSON.stringify(limit('SIDE_BUY', 1, 11, { clordId: 'json-1' })),
    );
    expect(res.status).toBe(200);
  });

  // Node keeps the first of two Authorization headers; a proxy in front may act on the last. Refused.
  it('refuses two Authorization headers with a 400 problem naming the header, nothing sent', async () => {
    const before = upstreamCalls(stack);
    const { hostname, port } = new URL(stack.url);
    const body = JSON.stringify(limit('SIDE_BUY', 1, 11, { clordId: 'two-keys' }));
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/exchange/v1/trading/orders',
          headers: [
            'host',
            `${hostname}:${port}`,
            'authorization',
            `Bearer ${stack.keys.all}`,
            'authorization',
            'Bearer pmgw_someone_else',
            'content-type',
            'application/json',
          ],
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ errors: [{ path: 'headers.authorization' }] });
    expect(upstreamCalls(stack) - before).toBe(0);
  });

  // RFC 8259 section 8.1: JSON between systems is UTF-8. A byte that is none was decoded as U+FFFD, so
  // two orders whose clordIds differed only there became one clordId upstream: the second was answered
  // as the first's replay (200, the first's orderId) and never placed, or refused 409 for a clordId
  // the client never sent.
  it.each([
    ['a lone byte 0xFF', [0xff]],
    ['a lone byte 0xFE', [0xfe]],
    ['an overlong encoding (C0 A2)', [0xc0, 0xa2]],
    ['a UTF-16 surrogate encoded in UTF-8 (ED A0 80)', [0xed, 0xa0, 0x80]],
  ])('refuses a JSON body that is not UTF-8 (%s): 400 problem, nothing sent', async (_, bytes) => {
    const before = upstreamCalls(stack);
    const [head, tail] = JSON.stringify(limit('SIDE_BUY', 1, 11, { clordId: 'ZZ' })).split('ZZ');
    const res = await rawRequest(
      stack.url,
      'POST',
      '/exchange/v1/trading/orders',
      { authorization: `Bearer ${stack.keys.all}`, 'content-type': 'application/json' },
      Buffer.concat([Buffer.from(`${head}utf8-`), Buffer.from(bytes), Buffer.from(tail)]),
    );
    expect({
      status: res.status,
      type: res.headers['content-type'],
      detail: (JSON.parse(res.text) as { detail?: string }).detail,
    }).toEqual({
      status: 400,
      type: expect.stringMatching(/^application\/problem\+json/),
      detail: 'The body is not valid UTF-8 (RFC 8259 section 8.1).',
    });
    expect(upstreamCalls(stack) - before).toBe(0);
  });

  it('takes a clordId of any script sent as UTF-8', async () => {
    const send = () =>
      rawRequest(
        stack.url,
        'POST',
        '/exchange/v1/trading/orders',
        { authorization: `Bearer ${stack.keys.all}`, 'content-type': 'application/json' },
        Buffer.from(JSON.stringify(limit('SIDE_BUY', 1, 11, { clordId: 'utf8-ünïcødé-注文' })), 'utf8'),
      );
    // A budget decision read late on a busy machine is refused 429 unsent: asked again, as a client would.
    let res = await send();
    for (let tries = 1; res.status === 429 && tries < 8; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      res = await send();
    }
    expect(res.status).toBe(200);
  });
});
