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
});
