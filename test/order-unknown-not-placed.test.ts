import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_TEAM_TRADER, PARTICIPANT, type Stack, eventually, json, testJournal } from './support/stack.js';

// An insert whose request was lost on the way (the connection dropped, the exchange never ran it) is
// UNKNOWN to the gateway: it cannot tell that from an answer lost after the order was placed. Before,
// such a key stayed 202 PENDING for its whole lifetime (24 h): the order search never found the order and
// a timer never turned the key terminal, so the client could neither learn the outcome nor resend under
// its key. The exchange places an order or rejects it unprocessed within 5 s of receiving it (its latency
// stopgap): a complete order search made journal.notPlacedAfterMs after the call ended that does not show
// the clordId proves the order was not placed. The journal says so and the key's answer is 409
// ORDER_NOT_PLACED, as a retail create's is; a new key places the order once. An order whose answer
// alone was lost is found.

const NOT_PLACED_AFTER_MS = 10_000;

describe('an UNKNOWN insert the exchange never ran', () => {
  let stack: Stack;
  const get = (path: string) =>
    fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.keys.all}` } });
  const ordersOf = (clordId: string) =>
    stack.sandbox.state.engine
      .searchOrders({ accounts: [PARTICIPANT] })
      .order.filter((order: { clordId: string }) => order.clordId === clordId);

  beforeAll(async () => {
    stack = await startResolverStack('while-unknown');
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('is resolved as not placed by a search past the stopgap, journaled, and answered 409 ORDER_NOT_PLACED', async () => {
    const { state } = stack.sandbox;
    const headers = { 'idempotency-key': 'lost-request-1' };
    const body = limit('SIDE_BUY', 1, 11, { clordId: 'lost-request-1' });
    const insertsBefore = state.counter('exchange.calls.insertOrder');
    state.setFaults({ exchangeLostRequests: { insertOrder: 1 } });
    const lost = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
    expect(lost.status).toBe(202);
    expect(state.counter('exchange.requestsLost.insertOrder')).toBe(1);

    // Until the outcome is proven, the same request is answered PENDING and never sent again.
    const pending = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
    expect(pending.status).toBe(202);
    expect(state.counter('exchange.calls.insertOrder')).toBe(insertsBefore);

    const timeline = await eventually(
      async () => json(await get('/orders/timeline?clordId=lost-request-1')),
      (found) => (found.records as { kind: string }[]).some((record) => record.kind === 'resolved'),
      45_000,
      250,
    );
    const resolved = (timeline.records as { kind: string; data: { outcome?: string; via?: string } }[]).filter(
      (record) => record.kind === 'resolved',
    );
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.data.outcome).toBe('not placed');
    expect(resolved[0]!.data.via).toMatch(/^order search \d+ s after the call ended$/);
    // Never concluded before the stopgap's margin: the search that proved it came that long after the call.
    expect(Number(/(\d+) s/.exec(resolved[0]!.data.via!)![1])).toBeGreaterThanOrEqual(NOT_PLACED_AFTER_MS / 1000);
    expect(state.counter('exchange.calls.searchOrders')).toBeGreaterThanOrEqual(1);
    expect(ordersOf('lost-request-1')).toEqual([]);

    // The key's outcome is final: the same request is answered 409 ORDER_NOT_PLACED, never sent.
    const replay = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
    expect({
      status: replay.status,
      replayed: replay.headers.get('idempotent-replayed'),
      code: (await json(replay)).code,
    }).toEqual({ status: 409, replayed: 'true', code: 'ORDER_NOT_PLACED' });
    expect(await json(await get('/orders/clord/lost-request-1'))).toMatchObject({ state: 'DONE', status: 409 });
    expect(state.counter('exchange.calls.insertOrder')).toBe(insertsBefore);

    // Placed with a new key, once: one order.
    const placed = await post(stack, '/exchange/v1/trading/orders', body, 'all', {
      'idempotency-key': 'lost-request-2',
    });
    expect(placed.status).toBe(200);
    expect(state.counter('exchange.calls.insertOrder')).toBe(insertsBefore + 1);
    expect(ordersOf('lost-request-1')).toHaveLength(1);
  }, 90_000);

  it('never frees the key of an insert whose answer alone was lost: it finds the finished order', async () => {
    await expectLostAnswerFound(stack, 'lost-answer-1', 12);
  }, 90_000);

  it('is resolved as not placed when the search shows only an earlier order of the reused clordId, given to another call', async () => {
    const { state } = stack.sandbox;
    const body = limit('SIDE_BUY', 1, 9, {
      clordId: 'reused-lost-1',
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
    });
    // Another team's order on the same participant (the gateway never sends one of a team's clordIds twice).
    const first = await post(stack, '/exchange/v1/trading/orders', body, OTHER_TEAM_TRADER.id, {
      'idempotency-key': 'reused-lost-a',
    });
    expect(first.status).toBe(200);
    expect(ordersOf('reused-lost-1')).toHaveLength(1); // finished at once: the clordId is free again

    const insertsBefore = state.counter('exchange.calls.insertOrder');
    state.setFaults({ exchangeLostRequests: { insertOrder: 1 } });
    const headers = { 'idempotency-key': 'reused-lost-b' };
    const lost = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
    expect(lost.status).toBe(202);
    const lookup = await eventually(
      async () => json(await get('/orders/key/reused-lost-b')),
      (found) => found.state === 'DONE',
      45_000,
      250,
    );
    expect(lookup).toMatchObject({ status: 409, answer: { code: 'ORDER_NOT_PLACED' } });
    expect(state.counter('exchange.calls.insertOrder')).toBe(insertsBefore);
    expect(ordersOf('reused-lost-1')).toHaveLength(1);
  }, 90_000);
});

/** A stack whose resolver searches 12 times a minute and concludes "not placed" NOT_PLACED_AFTER_MS after a call. */
function startResolverStack(orderStream: 'while-unknown' | 'never'): Promise<Stack> {
  return startExchangeStack([OTHER_TEAM_TRADER], {
    gateway: (config) => ({
      ...config,
      journal: {
        ...(config.journal ?? testJournal()),
        orderStream,
        resolveSearchesPerMinute: 12,
        notPlacedAfterMs: NOT_PLACED_AFTER_MS,
      },
      risk: {
        ...config.risk,
        breaker: { ...config.risk?.breaker, orderStream: orderStream === 'never' ? 'never' : 'while-orders' },
      },
    }),
  });
}

/** An immediate-or-cancel insert whose answer alone was lost: the search must find the finished order (its clordId is free again, a resend would be a second order). */
async function expectLostAnswerFound(stack: Stack, clordId: string, price: number): Promise<void> {
  const { state } = stack.sandbox;
  const get = (path: string) =>
    fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.keys.all}` } });
  const ordersOf = (clordId: string) =>
    state.engine
      .searchOrders({ accounts: [PARTICIPANT] })
      .order.filter((order: { clordId: string }) => order.clordId === clordId);
  const headers = { 'idempotency-key': clordId };
  const body = limit('SIDE_BUY', 1, price, { clordId, timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' });
  state.setFaults({ exchangeAnswerFaults: { insertOrder: { every: 1, drop: 1, hold: 0, holdMs: 0 } } });
  const lost = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
  state.setFaults({ exchangeAnswerFaults: {} });
  expect(lost.status).toBe(202);
  const [order] = ordersOf(clordId);
  expect(order).toBeDefined();

  const lookup = await eventually(
    async () => json(await get(`/orders/key/${clordId}`)),
    (found) => found.state === 'DONE',
    60_000,
    250,
  );
  expect(lookup).toMatchObject({ status: 200, answer: { orderId: order!.id } });
  const replay = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
  expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed') }).toEqual({
    status: 200,
    replayed: 'true',
  });
  expect(ordersOf(clordId)).toHaveLength(1);
}

describe('an UNKNOWN insert only an order search can find', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startResolverStack('never'); // no order stream: the order search alone decides
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  // The search filters on the order's createTime by the exchange's clock. Its start was the call's claim
  // time by the journal database's clock less 60 s: with the exchange's clock 3 minutes behind, the window
  // began after the order, and an order placed and filled was answered 409 ORDER_NOT_PLACED (a new key
  // would place it twice). The window is now set, and checked, by the exchange's clock as its `Date` shows it.
  it('finds the order of a lost answer while the exchange clock runs minutes behind ours', async () => {
    stack.sandbox.state.setClockSkew(-180_000);
    try {
      await expectLostAnswerFound(stack, 'skewed-lost-answer', 13);
    } finally {
      stack.sandbox.state.setClockSkew(0);
    }
  }, 90_000);

  // A 5xx after the send does not say the exchange did not place the order (upstream-facts "Order
  // safety": a load balancer's 502 or 504 while the exchange still runs the request, within its 5 s). The
  // resolver freed the key of such a call at its first search that did not show the order, whatever that
  // search proved: here its window, set before the resolver learned that the exchange's clock runs
  // minutes behind, began after the order. The client's retry under the same key was sent again and, the
  // first order being immediate-or-cancel and finished, made a second order. Such a key is now freed only
  // on the proof "not placed" takes (a complete search, journal.notPlacedAfterMs after the call ended,
  // whose window covers the call).
  it('never frees the key of an insert answered 502 while the exchange still placed it', async () => {
    const { state } = stack.sandbox;
    const headers = { 'idempotency-key': 'bad-gateway-1' };
    const body = limit('SIDE_BUY', 1, 14, {
      clordId: 'bad-gateway-1',
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
    });
    state.setClockSkew(-400_000);
    state.setFaults({ exchangeBadGateway: { insertOrder: { count: 1, runAfterMs: 1_000 } } });
    const first = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers).finally(() =>
      state.setFaults({ exchangeBadGateway: {} }),
    );
    expect(first.status).toBe(202);
    expect(state.counter('exchange.badGateway.insertOrder')).toBe(1);

    // The client retries the identical request under its key until it has an outcome.
    const outcome = await eventually(
      () => post(stack, '/exchange/v1/trading/orders', body, 'all', headers),
      (answer) => answer.status !== 202,
      60_000,
      500,
    ).finally(() => state.setClockSkew(0));
    const orders = stack.sandbox.state.engine
      .searchOrders({ accounts: [PARTICIPANT] })
      .order.filter((order: { clordId: string }) => order.clordId === 'bad-gateway-1');
    expect(orders).toHaveLength(1);
    expect({ status: outcome.status, answer: await json(outcome) }).toEqual({
      status: 200,
      answer: { orderId: orders[0]!.id },
    });
  }, 90_000);
});
