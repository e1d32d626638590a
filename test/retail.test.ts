import {
  ActivitiesResponseSchema,
  CreateOrderResponseSchema,
  PositionsResponseSchema,
  RetailBalanceSchema,
  RetailBboSchema,
  RetailBookSchema,
  RetailExecutionSchema,
  RetailOrderSchema,
} from '@lib/retail';
import { z } from 'zod';

import { type Stack, api, json, startStack } from './support/stack.js';

const usd = (value: string) => ({ value, currency: 'USD' });
const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  body: JSON.stringify(body),
  headers,
});
const HEDGE = { 'x-retail-account': 'hedge' };

let stack: Stack;
const counter = (name: string) => stack.sandbox.state.counter(name);

beforeAll(async () => {
  stack = await startStack({
    clients: [
      { id: 'reader', scopes: ['read:orders'] },
      { id: 'main-only', scopes: ['write:orders', 'read:orders', 'read:positions'], retailAccounts: ['main'] },
    ],
  });
});
afterAll(() => stack.close());

describe('retail routes through the gateway', () => {
  const slug = 'aec-nfl-gb-chi-2026-11-22';

  it('serves every order route at the upstream paths under /retail, signed with the chosen account', async () => {
    const call = api(stack);
    const created = await call(
      '/retail/v1/orders',
      post({ marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.35'), quantity: 6 }),
    );
    expect(created.status).toBe(200);
    const { id } = await json(created);
    expect(
      await json(await call(`/retail/v1/orders/open?slugs=${slug}&slugs=aec-nfl-bal-pit-2026-11-22`)),
    ).toMatchObject({ orders: [{ id, state: 'ORDER_STATE_NEW' }] });
    expect(await json(await call(`/retail/v1/order/${id}`))).toMatchObject({
      order: { id, price: usd('0.35'), quantity: 6 },
    });
    const preview = await call(
      '/retail/v1/order/preview',
      post({ request: { marketSlug: slug, intent: 'ORDER_INTENT_SELL_SHORT', price: usd('0.50'), quantity: 1 } }),
    );
    expect(await json(preview)).toMatchObject({
      order: { intent: 'ORDER_INTENT_SELL_SHORT', side: 'ORDER_SIDE_SELL' },
    });
    expect((await call(`/retail/v1/order/${id}/modify`, post({ marketSlug: slug, price: usd('0.36') }))).status).toBe(
      200,
    );
    expect(await json(await call(`/retail/v1/order/${id}`))).toMatchObject({ order: { price: usd('0.36') } });

    const sold = await call(
      '/retail/v1/orders',
      post(
        {
          marketSlug: slug,
          intent: 'ORDER_INTENT_SELL_LONG',
          price: usd('0.36'),
          quantity: 2,
          synchronousExecution: true,
          maxBlockTime: '1',
        },
        HEDGE,
      ),
    );
    expect((await json(sold)).executions.at(-1)).toMatchObject({ type: 'EXECUTION_TYPE_FILL', lastShares: '2' });
    expect((await call(`/retail/v1/order/${id}/cancel`, post({ marketSlug: slug }))).status).toBe(200);
    await call(
      '/retail/v1/orders',
      post({ marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.01'), quantity: 1 }),
    );
    expect(
      (await json(await call('/retail/v1/orders/open/cancel', post({ slugs: [slug] })))).canceledOrderIds,
    ).toHaveLength(1);

    await call(
      '/retail/v1/orders',
      post({ marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.30'), quantity: 2 }, HEDGE),
    );
    const closed = await call(
      '/retail/v1/order/close-position',
      post({ marketSlug: slug, synchronousExecution: true, maxBlockTime: '1' }),
    );
    expect((await json(closed)).executions.at(-1).order).toMatchObject({
      intent: 'ORDER_INTENT_SELL_LONG',
      state: 'ORDER_STATE_FILLED',
    });
    for (const name of [
      'createOrder',
      'openOrders',
      'getOrder',
      'previewOrder',
      'modifyOrder',
      'cancelOrder',
      'cancelAllOrders',
      'closePosition',
    ]) {
      expect(counter(`retail.route.${name}`)).toBeGreaterThan(0);
    }
  });

  it('serves positions, activities with cursor paging, balances, BBO and book', async () => {
    const call = api(stack);
    expect(await json(await call(`/retail/v1/portfolio/positions?market=${slug}`))).toMatchObject({
      positions: { [slug]: { netPosition: '0', realized: usd('-0.12') } },
      eof: true,
    });
    const first = await json(
      await call(`/retail/v1/portfolio/activities?limit=1&types=ACTIVITY_TYPE_TRADE&marketSlug=${slug}`),
    );
    expect(first).toMatchObject({
      activities: [{ type: 'ACTIVITY_TYPE_TRADE', trade: { price: usd('0.30') } }],
      eof: false,
    });
    const second = await json(
      await call(
        `/retail/v1/portfolio/activities?limit=5&types=ACTIVITY_TYPE_TRADE&marketSlug=${slug}&cursor=${first.nextCursor}`,
      ),
    );
    expect(second).toMatchObject({ activities: [{ trade: { price: usd('0.36') } }], eof: true });
    const oldest = await json(await call('/retail/v1/portfolio/activities?sortOrder=SORT_ORDER_ASCENDING&limit=1'));
    expect(oldest.activities[0]).toMatchObject({
      type: 'ACTIVITY_TYPE_ACCOUNT_DEPOSIT',
      accountBalanceChange: { amount: usd('10000.00') },
    });
    expect((await json(await call('/retail/v1/account/balances'))).balances[0]).toMatchObject({
      currency: 'USD',
      currentBalance: 9_999.88,
    });
    expect(await json(await call(`/retail/v1/markets/${slug}/bbo`))).toMatchObject({
      marketSlug: slug,
      lastTradePx: usd('0.30'),
    });
    expect(await json(await call(`/retail/v1/markets/${slug}/book`))).toMatchObject({
      marketSlug: slug,
      bids: [],
      offers: [],
      state: 'MARKET_STATE_OPEN',
    });
    expect((await call('/retail/v1/markets/no-such-market/book')).status).toBe(404);
  });

  it("answers in the shapes of the library's response schemas (the sandbox's answers are written separately)", async () => {
    const call = api(stack);
    const issuesOf = async (res: Response, schema: z.ZodType) =>
      z.prettifyError(schema.safeParse(await json(res)).error ?? new z.ZodError([]));
    // A resting sell, then a buy that fills against it at once: executions, a position and trade activities to check.
    const resting = await call(
      '/retail/v1/orders',
      post({ marketSlug: slug, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.61'), quantity: 1 }, HEDGE),
    );
    const { id } = await json(resting.clone());
    try {
      const filled = await call(
        '/retail/v1/orders',
        post({
          marketSlug: slug,
          intent: 'ORDER_INTENT_BUY_LONG',
          price: usd('0.61'),
          quantity: 1,
          synchronousExecution: true,
          maxBlockTime: '1',
        }),
      );
      expect(await issuesOf(resting, CreateOrderResponseSchema)).toBe('');
      expect(
        await issuesOf(
          filled,
          CreateOrderResponseSchema.extend({
            executions: z
              .array(RetailExecutionSchema)
              .refine((all) => all.some((e) => e.type === 'EXECUTION_TYPE_FILL'), 'no fill'),
          }),
        ),
      ).toBe('');
      const resting2 = await call(
        '/retail/v1/orders',
        post({ marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.02'), quantity: 1 }),
      );
      expect(resting2.status).toBe(200);
      const { id: open } = await json(resting2);
      // Order reads have a small budget (55 per 10 s) that the tests above spent: queue for it.
      const wait = { headers: { prefer: 'wait=5' } };
      expect(await issuesOf(await call(`/retail/v1/order/${open}`, wait), z.object({ order: RetailOrderSchema }))).toBe(
        '',
      );
      expect(
        await issuesOf(
          await call('/retail/v1/orders/open', wait),
          z.object({ orders: z.array(RetailOrderSchema).min(1) }),
        ),
      ).toBe('');
      await call(`/retail/v1/order/${open}/cancel`, post({ marketSlug: slug }));
      expect(
        await issuesOf(
          await call('/retail/v1/portfolio/positions'),
          PositionsResponseSchema.extend({
            positions: z.record(z.string(), z.unknown()).refine((p) => Object.keys(p).length > 0, 'no position'),
          }),
        ),
      ).toBe('');
      expect(
        await issuesOf(
          await call('/retail/v1/portfolio/activities?limit=50'),
          ActivitiesResponseSchema.extend({ activities: ActivitiesResponseSchema.shape.activities.min(2) }),
        ),
      ).toBe('');
      expect(
        await issuesOf(
          await call('/retail/v1/account/balances'),
          z.object({ balances: z.array(RetailBalanceSchema).min(1) }),
        ),
      ).toBe('');
      expect(await issuesOf(await call(`/retail/v1/markets/${slug}/bbo`), RetailBboSchema)).toBe('');
      expect(await issuesOf(await call(`/retail/v1/markets/${slug}/book`), RetailBookSchema)).toBe('');
    } finally {
      await call(`/retail/v1/order/${id}/cancel`, post({ marketSlug: slug }, HEDGE));
    }
  });

  const order = { marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.40'), quantity: 1 };
  it.each<[string, string, unknown, string]>([
    ['no marketSlug', '/retail/v1/orders', { ...order, marketSlug: undefined }, 'body.marketSlug'],
    ['no intent', '/retail/v1/orders', { ...order, intent: undefined }, 'body.intent'],
    ['a limit order without price', '/retail/v1/orders', { ...order, price: undefined }, 'body.price'],
    [
      'a market order without quantity or cashOrderQty',
      '/retail/v1/orders',
      { ...order, type: 'ORDER_TYPE_MARKET', price: undefined, quantity: undefined },
      'body.quantity',
    ],
    [
      'GOOD_TILL_DATE without goodTillTime',
      '/retail/v1/orders',
      { ...order, tif: 'TIME_IN_FORCE_GOOD_TILL_DATE' },
      'body.goodTillTime',
    ],
    [
      'a fractional maxBlockTime',
      '/retail/v1/orders',
      { ...order, synchronousExecution: true, maxBlockTime: '1.5' },
      'body.maxBlockTime',
    ],
    [
      'a maxBlockTime beyond int64',
      '/retail/v1/orders',
      { ...order, maxBlockTime: '9223372036854775808' },
      'body.maxBlockTime',
    ],
    ['a zero quantity', '/retail/v1/orders', { ...order, quantity: 0 }, 'body.quantity'],
    [
      'a negative cashOrderQty',
      '/retail/v1/orders',
      { ...order, type: 'ORDER_TYPE_MARKET', cashOrderQty: usd('-5') },
      'body.cashOrderQty.value',
    ],
    ['an unknown field', '/retail/v1/orders', { ...order, clordId: 'x' }, 'body.clordId'],
    [
      'a preview of an invalid order',
      '/retail/v1/order/preview',
      { request: { ...order, price: undefined } },
      'body.request.price',
    ],
    [
      'a modify with a negative quantity',
      '/retail/v1/order/O1/modify',
      { marketSlug: slug, quantity: -1 },
      'body.quantity',
    ],
    ['a close without marketSlug', '/retail/v1/order/close-position', {}, 'body.marketSlug'],
  ])('answers 400 before spending anything to %s', async (_, path, body, field) => {
    const before = stack.sandbox.state.counterSnapshot();
    const res = await api(stack)(path, post(body));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(res)).errors.map((e: { path: string }) => e.path)).toContain(field);
    expect(stack.sandbox.state.counterSnapshot()).toEqual(before);
  });

  it.each([
    ['an unknown query parameter', '/retail/v1/orders/open?slug=x', 'query.slug'],
    ['an unknown activity type', '/retail/v1/portfolio/activities?types=ACTIVITY_TYPE_NOPE', 'query.types.0'],
    ['a zero limit', '/retail/v1/portfolio/positions?limit=0', 'query.limit'],
    ['a query on a route without one', '/retail/v1/account/balances?currency=USD', 'query.currency'],
    ['a market slug that is not one', '/retail/v1/markets/Bad%20Slug/bbo', 'params.slug'],
  ])('answers 400 to %s', async (_, path, field) => {
    const res = await api(stack)(path);
    expect(res.status).toBe(400);
    expect((await json(res)).errors.map((e: { path: string }) => e.path)).toContain(field);
  });

  it('answers 401 without an API key and 403 without the scope or the account', async () => {
    expect((await fetch(`${stack.url}/retail/v1/orders`, post(order))).status).toBe(401);
    for (const [path, init, scope] of [
      ['/retail/v1/orders', post(order), 'write:orders'],
      ['/retail/v1/portfolio/positions', {}, 'read:positions'],
      ['/retail/v1/markets/x/book', {}, 'read:marketdata'],
    ] as const) {
      const res = await api(stack, 'reader')(path, init);
      expect(res.status).toBe(403);
      expect((await json(res)).missingScope).toBe(scope);
    }
    const denied = await api(stack, 'main-only')('/retail/v1/orders/open', { headers: HEDGE });
    expect(denied.status).toBe(403);
    expect((await api(stack, 'reader')('/retail/v1/orders/open')).status).toBe(200);
  });

  it('maps a 429 of the upstream to a 429 problem with Retry-After and the upstream body', async () => {
    const { limiter } = stack.sandbox.state.retail;
    limiter.reset(); // the calls of earlier tests are still in the window
    limiter.limits.getOrder = 1;
    try {
      // Queue for the gateway's own budget (small burst on this route), so both calls reach the sandbox.
      const queue = { headers: { prefer: 'wait=10' } };
      await api(stack)('/retail/v1/order/O1', queue);
      const res = await api(stack)('/retail/v1/order/O1', queue);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await json(res)).toMatchObject({
        code: 'UPSTREAM_RATE_LIMITED',
        upstream: { status: 429, body: { status: 429, message: 'Too Many Requests' } },
      });
      expect(counter('retail.limited.getOrder')).toBe(1);
    } finally {
      limiter.reset();
    }
  });
});

describe('synchronous execution through the gateway', () => {
  let slow: Stack;
  const slug = 'aec-nfl-det-min-2026-11-22';
  beforeAll(async () => {
    slow = await startStack({ gateway: (config) => ({ ...config, retail: { requestTimeoutMs: 600 } }) });
  });
  afterAll(() => slow.close());

  it('waits past the ordinary deadline for as long as maxBlockTime asks, until the order fills', async () => {
    const call = api(slow);
    const blocking = call(
      '/retail/v1/orders',
      post({
        marketSlug: slug,
        intent: 'ORDER_INTENT_BUY_LONG',
        price: usd('0.45'),
        quantity: 3,
        synchronousExecution: true,
        maxBlockTime: '5',
      }),
    );
    await new Promise((r) => setTimeout(r, 1_200)); // twice the ordinary deadline
    await call(
      '/retail/v1/orders',
      post({ marketSlug: slug, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.45'), quantity: 3 }, HEDGE),
    );
    const res = await blocking;
    expect(res.status).toBe(200);
    expect((await json(res)).executions.map((e: { type: string }) => e.type)).toEqual([
      'EXECUTION_TYPE_NEW',
      'EXECUTION_TYPE_FILL',
    ]);
  });

  it('returns when maxBlockTime runs out, with the order still working', async () => {
    const res = await api(slow)(
      '/retail/v1/orders',
      post({
        marketSlug: slug,
        intent: 'ORDER_INTENT_BUY_LONG',
        price: usd('0.05'),
        quantity: 1,
        synchronousExecution: true,
        maxBlockTime: '1',
      }),
    );
    expect(res.status).toBe(200);
    expect((await json(res)).executions).toEqual([
      expect.objectContaining({
        type: 'EXECUTION_TYPE_NEW',
        order: expect.objectContaining({ state: 'ORDER_STATE_NEW' }),
      }),
    ]);
  });

  it('answers 202 PENDING when an order insert times out, and never sends it again', async () => {
    const { state } = slow.sandbox;
    const before = state.counter('retail.route.createOrder');
    state.retail.faults.delayMs = 1_500;
    try {
      const res = await api(slow)(
        '/retail/v1/orders',
        post({ marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.02'), quantity: 1 }),
      );
      // The order may exist: its outcome is UNKNOWN, kept under a key the gateway names, resolved from the open orders (order-outcomes.test.ts).
      expect(res.status).toBe(202);
      expect(await json(res)).toMatchObject({ state: 'PENDING', idempotencyKey: expect.stringMatching(/^gateway:/) });
      await new Promise((r) => setTimeout(r, 1_500));
      expect(state.counter('retail.route.createOrder')).toBe(before + 1);
    } finally {
      state.retail.faults.delayMs = 0;
    }
  });
});
