import { limit, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { type RawResponse, rawRequest } from './support/raw-http.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack } from './support/stack.js';

// A clordId is sent upstream, journaled in a text column and, without an Idempotency-Key, keyed on in
// the idempotency table. PostgreSQL refuses a NUL in text: the write failed (503 JOURNAL_UNAVAILABLE),
// and with it every order batched into the same statement, another team's included. It stores an
// unpaired surrogate as U+FFFD: the claim never found its own row again (409 in flight until the key
// expired). Such text is now refused 400 naming the field, before anything is journaled or spent.

const CLIENTS = [
  {
    id: 'hostile',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [OTHER_PARTICIPANT],
  },
  {
    id: 'honest',
    team: 'platform',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
  { id: 'reader', team: 'platform', scopes: ['read:reports' as const], participants: [PARTICIPANT] },
];
const ORDERS = '/exchange/v1/trading/orders';

describe('hostile text in journaled order fields', () => {
  let stack: Stack;
  const headers = (clientId: string) => ({
    authorization: `Bearer ${stack.keys[clientId]}`,
    'content-type': 'application/json',
  });
  const send = (clientId: string, path: string, body: unknown) =>
    rawRequest(stack.url, 'POST', path, headers(clientId), JSON.stringify(body));
  /** The answer as a test reads it: status, problem+json, and the fields its errors name. */
  const refusal = (res: RawResponse) => ({
    status: res.status,
    problem: String(res.headers['content-type']).startsWith('application/problem+json'),
    fields: ((JSON.parse(res.text) as { errors?: { path: string }[] }).errors ?? []).map((error) => error.path),
  });

  beforeAll(async () => {
    // A budget decision read late (past limits.maxDecisionAgeMs, 50 ms) is refused 429: on a starved machine
    // that took 7 of the 8 honest orders of a round. This test is about the wall, not lateness.
    stack = await startExchangeStack(CLIENTS, {
      gateway: (config) => ({ ...config, limits: { ...config.limits, maxDecisionAgeMs: 30_000 } }),
    });
  });
  afterAll(() => stack?.close());

  it.each([
    ['a NUL', 'evil\u0000clord'],
    ['an unpaired surrogate', 'evil\ud800clord'],
    ['a line feed', 'evil\nclord'],
  ])('refuses an insert whose clordId holds %s: 400 naming body.clordId, nothing sent', async (_, clordId) => {
    const before = upstreamCalls(stack);
    const res = await send('hostile', ORDERS, limit('SIDE_BUY', 1, 11, { clordId }));
    expect(refusal(res)).toEqual({ status: 400, problem: true, fields: ['body.clordId'] });
    expect(upstreamCalls(stack) - before).toBe(0);
  });

  it('refuses a cancel by such a clordId, and a symbol or order id holding a NUL, before any upstream call', async () => {
    const before = upstreamCalls(stack);
    const cancel = await send('hostile', `${ORDERS}/cancel`, { clordId: 'evil\u0000clord' });
    expect(refusal(cancel)).toEqual({ status: 400, problem: true, fields: ['body.clordId'] });
    const byId = await send('hostile', `${ORDERS}/cancel`, { orderId: 'O\u00001' });
    expect(refusal(byId)).toEqual({ status: 400, problem: true, fields: ['body.orderId'] });
    const symbol = await send('hostile', ORDERS, { ...limit('SIDE_BUY', 1, 11), symbol: 'aec\u0000nfl' });
    expect(refusal(symbol)).toEqual({ status: 400, problem: true, fields: ['body.symbol'] });
    expect(upstreamCalls(stack) - before).toBe(0);
  });

  it('refuses a timeline lookup by such an id 400 naming it, not a 503 from the failed query', async () => {
    for (const query of ['clordId=evil%00clord', 'orderId=O%001']) {
      const res = await rawRequest(stack.url, 'GET', `/orders/timeline?${query}`, {
        authorization: `Bearer ${stack.keys.honest}`,
      });
      expect(refusal(res)).toEqual({ status: 400, problem: true, fields: [`query.${query.split('=')[0]}`] });
    }
  });

  it('refuses an order or trade search by such an id or symbol, 400 naming it, before any upstream read', async () => {
    const before = upstreamCalls(stack);
    const searches: [string, Record<string, string>, string][] = [
      ['/exchange/v1/report/orders/search', { clordId: 'evil\u0000clord' }, 'body.clordId'],
      ['/exchange/v1/report/orders/search', { orderId: 'O\ud8001' }, 'body.orderId'],
      ['/exchange/v1/report/trades/search', { symbol: 'aec\u0007nfl' }, 'body.symbol'],
    ];
    for (const [path, body, field] of searches)
      expect(refusal(await send('reader', path, body))).toEqual({ status: 400, problem: true, fields: [field] });
    expect(upstreamCalls(stack) - before).toBe(0);
  });

  it("another team's orders sent at the same moment all pass", async () => {
    for (let round = 0; round < 3; round++) {
      const [honest, hostile] = await Promise.all([
        Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            send('honest', ORDERS, limit('SIDE_BUY', 1, 11, { clordId: `honest-${round}-${i}` })),
          ),
        ),
        Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            send('hostile', ORDERS, limit('SIDE_BUY', 1, 11, { clordId: `evil\u0000${round}-${i}` })),
          ),
        ),
      ]);
      expect({ round, honest: honest.map((res) => res.status) }).toEqual({ round, honest: Array(8).fill(200) });
      expect(hostile.map((res) => res.status)).toEqual([400, 400, 400, 400]);
    }
    // The refused client is still served with a clean clordId.
    expect((await send('hostile', ORDERS, limit('SIDE_BUY', 1, 11, { clordId: 'clean-after' }))).status).toBe(200);
  });
});
