import { request as httpRequest } from 'node:http';

import { SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { type Stack, api, json, startStack } from './support/stack.js';

/** Everything the sandbox ran on any surface: exchange operations and retail routes. */
const sent = (stack: Stack): number =>
  upstreamCalls(stack) +
  Object.entries(stack.sandbox.state.counterSnapshot())
    .filter(([name]) => name.startsWith('retail.route.'))
    .reduce((sum, [, n]) => sum + n, 0);

/** A request whose path reaches the gateway exactly as written (fetch would resolve `..` first). */
function raw(stack: Stack, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method,
        path,
        headers: { authorization: `Bearer ${stack.keys.all}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const retailOrder = (extra: object = {}) => ({
  marketSlug: 'aec-nfl-buf-kc-2026-11-22',
  intent: 'ORDER_INTENT_BUY_LONG',
  type: 'ORDER_TYPE_LIMIT',
  price: { value: '0.03', currency: 'USD' },
  quantity: 1,
  ...extra,
});

describe('local validation before any budget (issue 14 item 6)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack();
  });
  afterAll(() => stack.close());

  const refused = async (path: string, body: unknown, field: string) => {
    const before = sent(stack);
    const res = await post(stack, path, body);
    const problem = await json(res);
    expect([path, field, res.status, problem.code]).toEqual([path, field, 400, 'VALIDATION_FAILED']);
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain(field);
    expect(sent(stack)).toBe(before);
  };

  it.each([
    ['orderQty', '-1'],
    ['orderQty', '0'],
    ['price', '-5'],
    ['price', '0'],
    ['price', '99999999999999999999'],
    ['price', '1e308'],
    ['orderQty', '1e-300'],
    ['minQty', '-1'],
    ['cashOrderQty', '-1'],
    ['stopPrice', '-1'],
  ])('refuses an exchange order with %s %j', async (field, value) => {
    await refused('/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 50, { [field]: value }), `body.${field}`);
  });

  // A new order's clordId is the path segment its outcome is read back at (the Location of a 202): with a
  // dot segment it was sent, and its PENDING outcome could not be read (a probe).
  it.each(['.', '..', 'a/../b', 'a/./b'])(
    'refuses an exchange insert with clordId %j, and a batch child with it',
    async (clordId) => {
      await refused('/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 50, { clordId }), 'body.clordId');
      await refused(
        '/exchange/v1/trading/orders/list',
        { requests: [limit('SIDE_BUY', 1, 50, { clordId: 'fine-1' }), limit('SIDE_BUY', 1, 50, { clordId })] },
        'body.requests.1.clordId',
      );
    },
  );

  it('refuses a negative replace price and a deposit of "-5"', async () => {
    await refused(
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ orderId: 'O1', price: '-5' }] },
      'body.requests.0.price',
    );
    await refused('/exchange/v1/checkout/deposits', { amount: '-5' }, 'body.amount');
  });

  it.each([
    ['quantity', 2 ** 64],
    ['quantity', 2 ** 53 + 2],
    ['quantity', 1e308],
    ['quantity', 1e-300],
    ['quantity', -1],
    ['quantity', 0],
  ])('refuses a retail order with %s %p', async (field, value) => {
    await refused('/retail/v1/orders', retailOrder({ [field]: value }), `body.${field}`);
  });

  it.each(['1.5', '1', '0', '99999999999999999999', '1e308', '-0.5'])('refuses a retail price of %j', async (value) => {
    await refused('/retail/v1/orders', retailOrder({ price: { value, currency: 'USD' } }), 'body.price.value');
  });

  it('refuses a retail cash amount past 2^53 - 1 dollars', async () => {
    await refused(
      '/retail/v1/orders',
      retailOrder({
        type: 'ORDER_TYPE_MARKET',
        price: undefined,
        quantity: undefined,
        cashOrderQty: { value: '9007199254740993', currency: 'USD' },
      }),
      'body.cashOrderQty.value',
    );
  });

  it.each([
    ['POST', '/retail/v1/order/../cancel', { marketSlug: 'aec-nfl-buf-kc-2026-11-22' }],
    ['POST', '/retail/v1/order/%2e%2e/cancel', { marketSlug: 'aec-nfl-buf-kc-2026-11-22' }],
    ['POST', '/retail/v1/order/./modify', { marketSlug: 'aec-nfl-buf-kc-2026-11-22' }],
    ['POST', '/retail/v1/order/%2E/modify', { marketSlug: 'aec-nfl-buf-kc-2026-11-22' }],
    ['GET', '/retail/v1/order/..', undefined],
    ['GET', '/exchange/v1/orderbook/..', undefined],
    ['GET', '/exchange/v1/orderbook/%2e%2e', undefined],
    ['GET', '/exchange/v1/orderbook/./bbo', undefined],
    ['POST', '/exchange/v1/%2e%2e/deposits', { amount: '5' }],
  ])('answers %s %s locally, sending nothing upstream', async (method, path, body) => {
    const before = sent(stack);
    const res = await raw(stack, method, path, body);
    expect([path, [400, 404].includes(res.status)]).toEqual([path, true]);
    expect(sent(stack)).toBe(before);
  });

  it('still sends an ordinary order and a dotted but real path parameter', async () => {
    expect((await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 5, { minQty: '0' }))).status).toBe(
      200,
    );
    expect((await post(stack, '/retail/v1/orders', retailOrder())).status).toBe(200);
  });
});

describe('order-book symbols checked against the instrument list the gateway keeps', () => {
  let stack: Stack;
  beforeAll(async () => {
    // Published limits on both sides: the firm's order-book budget is 12 reads a minute.
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('answers 404 for junk symbols locally, spending no book budget, so a real symbol still gets its book', async () => {
    const { state } = stack.sandbox;
    for (let i = 0; i < 20; i++) {
      const res = await api(stack)(i % 2 ? `/exchange/v1/orderbook/junk-${i}` : `/exchange/v1/orderbook/junk-${i}/bbo`);
      expect([i, res.status, (await json(res)).code]).toEqual([i, 404, 'NOT_FOUND']);
    }
    expect(state.counter('exchange.calls.orderBook') + state.counter('exchange.calls.bbo')).toBe(0);
    // One read of the list serves every miss of the minute.
    expect(state.counter('exchange.calls.instruments')).toBe(1);
    const real = await api(stack)(`/exchange/v1/orderbook/${SYMBOL}`);
    expect(real.status).toBe(200);
    expect((await json(real)).symbol).toBe(SYMBOL);
  });
});
