import { SCOPES, type Scope } from '@lib/core';

import { SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { type Stack, api, json } from './support/stack.js';

type Route = [method: 'GET' | 'POST', path: string, scope: Scope, accountScoped: boolean];

/** Every exchange route of the gateway with the scope it needs (spec 5.1, closest documented scope where not shown). */
const ROUTES: Route[] = [
  ['POST', '/exchange/v1/trading/orders', 'write:orders', true],
  ['POST', '/exchange/v1/trading/orders/preview', 'read:orders', true],
  ['POST', '/exchange/v1/trading/orders/list', 'write:orders', true],
  ['POST', '/exchange/v1/trading/orders/replace/list', 'write:orders', true],
  ['GET', '/exchange/v1/trading/orders/open', 'read:orders', true],
  ['GET', '/exchange/v1/trading/open-orders', 'read:orders', true],
  ['POST', '/exchange/v1/trading/orders/cancel', 'write:orders', true],
  ['POST', '/exchange/v1/report/orders/search', 'read:reports', true],
  ['POST', '/exchange/v1/report/trades/search', 'read:reports', true],
  ['POST', '/exchange/v1/report/trades/stats', 'read:reports', true],
  ['POST', '/exchange/v1/refdata/instruments', 'read:instruments', false],
  ['POST', '/exchange/v1/refdata/symbols', 'read:instruments', false],
  ['POST', '/exchange/v1/refdata/metadata', 'read:instruments', false],
  ['GET', `/exchange/v1/orderbook/${SYMBOL}`, 'read:l2marketdata', false],
  ['GET', `/exchange/v1/orderbook/${SYMBOL}/bbo`, 'read:marketdata', false],
  ['GET', '/exchange/v1/funding/accounts', 'read:funding', true],
  ['POST', '/exchange/v1/checkout/deposits', 'write:funding', true],
  ['POST', '/exchange/v1/processor-a/deposits', 'write:funding', true],
  ['GET', '/exchange/v1/positions', 'read:positions', true],
  ['POST', '/exchange/v1/positions/balance', 'read:positions', true],
  ['POST', '/exchange/v1/positions/balances', 'read:positions', true],
  ['GET', '/exchange/v1/whoami', 'read:accounts', false],
  ['GET', '/exchange/v1/users', 'read:accounts', false],
];

const ALL_BUT = (missing: Scope): Scope[] => SCOPES.filter((scope) => scope !== missing);

describe('exchange route access', () => {
  let stack: Stack;

  beforeAll(async () => {
    const scopes = [...new Set(ROUTES.map(([, , scope]) => scope))];
    stack = await startExchangeStack([
      ...scopes.map((scope) => ({ id: `without-${scope.replace(':', '-')}`, scopes: ALL_BUT(scope) })),
      { id: 'no-participant', scopes: [...SCOPES], participants: [] },
    ]);
  });
  afterAll(() => stack.close());

  const send = (method: string, path: string, clientId: string, body: unknown = {}) =>
    api(stack, clientId)(path, method === 'POST' ? { method, body: JSON.stringify(body) } : { method });

  it('answers 401 without a key on every route family, before anything is sent', async () => {
    const before = upstreamCalls(stack);
    // One route per family: the gateway slows an address down after 20 failed authentications a minute.
    const families = new Map(ROUTES.map(([method, path]) => [path.split('/')[3], [method, path] as const]));
    for (const [method, path] of families.values())
      expect([path, (await fetch(stack.url + path, { method })).status]).toEqual([path, 401]);
    expect(families.size).toBeGreaterThanOrEqual(7);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('answers 403 without the scope on every route, before anything is sent', async () => {
    const before = upstreamCalls(stack);
    for (const [method, path, scope] of ROUTES) {
      const denied = await send(method, path, `without-${scope.replace(':', '-')}`);
      expect([path, denied.status]).toEqual([path, 403]);
      expect(await json(denied)).toMatchObject({ code: 'FORBIDDEN', missingScope: scope });
    }
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('answers 403 on account-scoped routes for a client that may act for no participant', async () => {
    const before = upstreamCalls(stack);
    for (const [method, path] of ROUTES.filter(([, , , accountScoped]) => accountScoped)) {
      const res = await send(method, path, 'no-participant');
      expect([path, res.status]).toEqual([path, 403]);
    }
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('answers 400 on every route with a body when the body is not a JSON object', async () => {
    const before = upstreamCalls(stack);
    for (const [method, path] of ROUTES.filter(([method]) => method === 'POST')) {
      const res = await send(method, path, 'all', ['not', 'an', 'object']);
      expect([path, res.status]).toEqual([path, 400]);
    }
    expect(upstreamCalls(stack)).toBe(before);
  });

  it.each([
    [
      'an unknown enum value',
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 50, { side: 'SIDE_SIDEWAYS' }),
      'body.side',
    ],
    [
      'a malformed int64',
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 50, { orderQty: '1.5' }),
      'body.orderQty',
    ],
    [
      'an int64 past 2^63-1',
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 50, { price: '9223372036854775808' }),
      'body.price',
    ],
    [
      'an impossible date-time',
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 50, { goodTillTime: '2026-02-30T10:00:00Z' }),
      'body.goodTillTime',
    ],
    ['an unknown field', '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 50, { colour: 'red' }), 'body.colour'],
    [
      'a bad order inside a batch',
      '/exchange/v1/trading/orders/list',
      { requests: [1, 2, 3, 4].map((q) => limit('SIDE_BUY', q, 50, q === 4 ? { orderQty: 'four' } : {})) },
      'body.requests.3.orderQty',
    ],
    [
      'a replace without an order id',
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ price: '50' }] },
      'body.requests.0.orderId',
    ],
    [
      'an impossible trade date',
      '/exchange/v1/report/orders/search',
      { startTransactTradeDate: { year: 2026, month: 2, day: 30 } },
      'body.startTransactTradeDate.day',
    ],
    [
      'an unknown state filter',
      '/exchange/v1/report/orders/search',
      { orderStateFilter: 'ORDER_STATE_FILTER_WORKING' },
      'body.orderStateFilter',
    ],
    ['a negative bar count', '/exchange/v1/report/trades/stats', { bars: -1 }, 'body.bars'],
    ['a page size of 1001', '/exchange/v1/refdata/instruments', { pageSize: 1001 }, 'body.pageSize'],
    [
      'an unknown instrument state',
      '/exchange/v1/refdata/instruments',
      { states: ['INSTRUMENT_STATE_SLEEPING'] },
      'body.states.0',
    ],
    ['an impossible listing date', '/exchange/v1/refdata/instruments', { endTimeLte: '2026-11-31' }, 'body.endTimeLte'],
  ])('answers 400 for %s on %s, before anything is sent', async (_, path, body, field) => {
    const before = upstreamCalls(stack);
    const res = await post(stack, path, body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await json(res);
    expect(problem.code).toBe('VALIDATION_FAILED');
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain(field);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('answers 400 for a book depth of 11 or an unknown query parameter, before anything is sent', async () => {
    const before = upstreamCalls(stack);
    for (const query of ['depth=11', 'depth=0', 'depth=two', 'levels=2']) {
      const res = await api(stack)(`/exchange/v1/orderbook/${SYMBOL}?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
    }
    expect((await json(await api(stack)(`/exchange/v1/orderbook/${SYMBOL}?depth=11`))).errors[0].path).toBe(
      'query.depth',
    );
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('passes the upstream 400 through for an int64 the exchange cannot hold', async () => {
    const res = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 50, { orderQty: '9007199254740993' }),
    );
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      code: 'UPSTREAM_BAD_REQUEST',
      upstream: { status: 400, body: { code: 3, message: expect.stringContaining('orderQty') } },
    });
  });
});
