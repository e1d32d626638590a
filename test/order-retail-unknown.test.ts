import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { post } from './support/exchange-stack.js';
import { type Stack, eventually, json, startStack, testJournal } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// Issue 27 item 2 for retail calls that make an order: a retail create or close-position whose answer
// is lost after the upstream ran it is UNKNOWN (202 PENDING), never resent, and resolved from the
// account's private order channel, which the gateway holds around such calls: whatever the order
// became (filled at once, so no longer among the open orders), its id and executions reach the lookup
// route, the replay and the journal; a call that made no order is resolved as not placed once final.

const MARKET = 'aec-nfl-det-min-2026-11-22';
const HEDGE = { 'x-retail-account': 'hedge' };
const usd = (value: string) => ({ value, currency: 'USD' });

interface Execution {
  type: string;
  order: { id: string; state: string; intent: string };
}
interface Resolved {
  kind: string;
  data: { outcome?: string; via?: string; operation?: string; state?: string };
}

describe('UNKNOWN retail creates and close-positions: resolved from the order channel, never resent', () => {
  let stack: Stack;
  let crashed: GatewayProcess | undefined;
  let restarted: Stack | undefined;
  let client: WsTestClient | undefined;
  const get = (path: string, url = stack.url) =>
    fetch(`${url}${path}`, { headers: { authorization: `Bearer ${stack.keys.all}` } });
  const done = (key: string, timeoutMs = 30_000) =>
    eventually(
      async () => json(await get(`/orders/key/${key}`)),
      (body) => body.state === 'DONE',
      timeoutMs,
      200,
    );
  const resolvedOf = async (orderId: string) => {
    const timeline = await json(await get(`/orders/timeline?orderId=${orderId}`));
    return ((timeline.records ?? []) as Resolved[]).find((record) => record.kind === 'resolved');
  };

  beforeAll(async () => {
    stack = await startStack({
      gateway: (config) => ({
        ...config,
        journal: { ...(config.journal ?? testJournal()), resolveSearchesPerMinute: 12 },
      }),
    });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await crashed?.stop();
    await restarted?.close();
    await stack?.close();
  });

  it('resolves a create whose answer was lost and whose order filled at once: FILLED, with its id, sent once', async () => {
    const { state } = stack.sandbox;
    // Liquidity from the other account, and an ordinary order of this one: its order channel is held from then on.
    const resting = await post(
      stack,
      '/retail/v1/orders',
      {
        marketSlug: MARKET,
        intent: 'ORDER_INTENT_SELL_LONG',
        price: usd('0.40'),
        quantity: 2,
      },
      'all',
      HEDGE,
    );
    expect(resting.status).toBe(200);
    const warm = await post(stack, '/retail/v1/orders', {
      marketSlug: MARKET,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.05'),
      quantity: 1,
    });
    expect(warm.status).toBe(200);
    // Both accounts' private channels carry an order subscription at the sandbox (waited for, not asserted: what counts is the outcome).
    await eventually(
      async () => [...state.retail.connections].filter((connection) => connection.subscriptionCount > 0).length,
      (subscribed) => subscribed >= 2,
      10_000,
    ).catch(() => undefined);

    // The client's order topic (the default account's, relayed from the upstream) carries the order's own events.
    client = await WsTestClient.open(stack.url, { key: stack.keys.all });
    client.send({ type: 'subscribe', id: 'o', topics: ['retail.orders'] });
    await client.next((f) => f.type === 'ack', 10_000);

    const order = { marketSlug: MARKET, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.40'), quantity: 2 };
    const headers = { 'idempotency-key': 'create-filled-1' };
    const createsBefore = state.counter('retail.route.createOrder');
    state.retail.faults.dropAnswers.createOrder = 1;
    const res = await post(stack, '/retail/v1/orders', order, 'all', headers);
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe('/orders/key/create-filled-1');
    expect(await json(res)).toMatchObject({ state: 'PENDING', idempotencyKey: 'create-filled-1' });
    expect(state.counter('retail.answersDropped.createOrder')).toBe(1);

    const lookup = await done('create-filled-1');
    expect(lookup).toMatchObject({ operation: 'retail.create', status: 200, answer: { id: expect.any(String) } });
    const { id, executions } = lookup.answer as { id: string; executions: Execution[] };
    expect(executions.at(-1)?.order).toMatchObject({ id, state: 'ORDER_STATE_FILLED' });
    expect(state.engine.order(id)).toMatchObject({ state: 'ORDER_STATE_FILLED', orderQty: 2 });

    const again = await post(stack, '/retail/v1/orders', order, 'all', headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toMatchObject({ id });
    expect(state.counter('retail.route.createOrder')).toBe(createsBefore + 1);
    expect(await resolvedOf(id)).toMatchObject({
      data: { operation: 'retail.create', outcome: 'found', state: 'ORDER_STATE_FILLED', via: 'retail order channel' },
    });
    const fill = await client.next(
      (f) =>
        f.topic === 'retail.orders' &&
        f.data?.data?.execution?.order?.id === id &&
        f.data.data.execution.type === 'EXECUTION_TYPE_FILL',
      10_000,
    );
    expect(fill.data.data.execution.order).toMatchObject({ state: 'ORDER_STATE_FILLED' });
  }, 60_000);

  it('resolves a close-position whose answer was lost with the order it made', async () => {
    const { state } = stack.sandbox;
    // A buyer for the position (2 bought above) the close sells at market.
    const bid = await post(
      stack,
      '/retail/v1/orders',
      {
        marketSlug: MARKET,
        intent: 'ORDER_INTENT_BUY_LONG',
        price: usd('0.30'),
        quantity: 2,
      },
      'all',
      HEDGE,
    );
    expect(bid.status).toBe(200);
    const close = { marketSlug: MARKET };
    const headers = { 'idempotency-key': 'close-lost-1' };
    const closesBefore = state.counter('retail.route.closePosition');
    state.retail.faults.dropAnswers.closePosition = 1;
    const res = await post(stack, '/retail/v1/order/close-position', close, 'all', headers);
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe('/orders/key/close-lost-1');
    expect(state.counter('retail.answersDropped.closePosition')).toBe(1);

    const lookup = await done('close-lost-1');
    expect(lookup).toMatchObject({
      operation: 'retail.closePosition',
      status: 200,
      answer: { id: expect.any(String) },
    });
    const { id, executions } = lookup.answer as { id: string; executions: Execution[] };
    expect(executions.at(-1)?.order).toMatchObject({
      id,
      intent: 'ORDER_INTENT_SELL_LONG',
      state: 'ORDER_STATE_FILLED',
    });
    expect(state.engine.order(id)).toMatchObject({ state: 'ORDER_STATE_FILLED', orderQty: 2 });

    const again = await post(stack, '/retail/v1/order/close-position', close, 'all', headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toMatchObject({ id });
    expect(state.counter('retail.route.closePosition')).toBe(closesBefore + 1);
    expect(await resolvedOf(id)).toMatchObject({
      data: { operation: 'retail.closePosition', outcome: 'found', via: 'retail order channel' },
    });
  }, 60_000);

  it('resolves a close-position that made no order (nothing to close), its answer lost, as not placed once final', async () => {
    const { state } = stack.sandbox;
    const headers = { 'idempotency-key': 'close-none-1' };
    const closesBefore = state.counter('retail.route.closePosition');
    const droppedBefore = state.counter('retail.answersDropped.closePosition');
    state.retail.faults.dropAnswers.closePosition = 1;
    const res = await post(stack, '/retail/v1/order/close-position', { marketSlug: MARKET }, 'all', headers);
    expect(res.status).toBe(202);
    expect(state.counter('retail.answersDropped.closePosition')).toBe(droppedBefore + 1);

    const lookup = await done('close-none-1', 40_000);
    expect(lookup).toMatchObject({
      operation: 'retail.closePosition',
      status: 409,
      answer: { code: 'ORDER_NOT_PLACED' },
    });
    const again = await post(stack, '/retail/v1/order/close-position', { marketSlug: MARKET }, 'all', headers);
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(state.counter('retail.route.closePosition')).toBe(closesBefore + 1);
  }, 60_000);
  it('resolves a create a killed instance left in flight, after the restart, from the order channel: FILLED, never resent', async () => {
    const { state } = stack.sandbox;
    const market = 'aec-nfl-gb-chi-2026-11-22';
    const resting = await post(
      stack,
      '/retail/v1/orders',
      { marketSlug: market, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.45'), quantity: 1 },
      'all',
      HEDGE,
    );
    expect(resting.status).toBe(200);
    const journal = { ...testJournal(), inFlightStaleMs: 1_000, resolveSearchesPerMinute: 12 };
    const config = { ...stack.configInput, retail: { requestTimeoutMs: 60_000 }, journal };
    crashed = await spawnGateway(config);
    const order = { marketSlug: market, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.45'), quantity: 1 };
    const body = JSON.stringify(order);
    const headers = {
      authorization: `Bearer ${stack.keys.all}`,
      'content-type': 'application/json',
      'idempotency-key': 'create-restart-1',
    };
    const createsBefore = state.counter('retail.route.createOrder');
    // The upstream has the create and holds it: the instance dies before it runs, and the order fills once the new instance is up.
    state.retail.faults.delayMs = 15_000;
    const lost = fetch(`${crashed.url}/retail/v1/orders`, { method: 'POST', body, headers }).catch(
      (error: Error) => error,
    );
    await eventually(
      async () => state.counter('retail.route.createOrder'),
      (n) => n === createsBefore + 1,
      10_000,
    );
    state.retail.faults.delayMs = 0;
    crashed.process.kill('SIGKILL');
    expect(String(await lost)).toMatch(/fetch failed/);

    restarted = await startStack({ reuseSandbox: stack.sandbox, gateway: () => config });
    const lookup = await eventually(
      async () => json(await get('/orders/key/create-restart-1', restarted!.url)),
      (found) => found.state === 'DONE',
      40_000,
      250,
    );
    expect(lookup).toMatchObject({ operation: 'retail.create', status: 200, answer: { id: expect.any(String) } });
    const { id, executions } = lookup.answer as { id: string; executions: Execution[] };
    expect(executions.at(-1)?.order).toMatchObject({ id, state: 'ORDER_STATE_FILLED' });
    const again = await fetch(`${restarted.url}/retail/v1/orders`, { method: 'POST', body, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(state.counter('retail.route.createOrder')).toBe(createsBefore + 1);
  }, 90_000);
});
