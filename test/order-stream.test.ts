import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// The exchange order stream on the server side (issue 27 items 2-3): an UNKNOWN insert resolved from the
// stream before any order search, and every stream event of an order (ack, fills, a reject after the 200)
// on its journal timeline.

const ORDERS = `exchange.orders.${PARTICIPANT}`;
const GTC = 'TIME_IN_FORCE_GOOD_TILL_CANCEL' as const;

interface TimelineRecord {
  kind: string;
  clordId?: string;
  orderId?: string;
  data: { event?: string; type?: string; via?: string; orderRejectReason?: string; lastShares?: string };
}

describe('order stream: UNKNOWN outcomes resolved and journaled from the exchange order stream', () => {
  let stack: Stack;
  let client: WsTestClient;
  const get = (path: string) =>
    fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.keys.all}` } });
  const timeline = async (clordId: string): Promise<TimelineRecord[]> => {
    const res = await get(`/orders/timeline?clordId=${clordId}`);
    return res.status === 200 ? ((await json(res)) as { records: TimelineRecord[] }).records : [];
  };
  const streamEvents = (records: TimelineRecord[]) =>
    records.filter((r) => r.kind === 'stream').map((r) => r.data.type);

  beforeAll(async () => {
    // One order search a minute at most: an outcome found within the test's wait came from the stream.
    stack = await startExchangeStack([{ id: 'reader', scopes: ['read:orders'] }], {
      gateway: (config) => ({ ...config, journal: { ...config.journal!, resolveSearchesPerMinute: 1 } }),
    });
    // A client on its order topic: the instance holds the exchange order stream.
    client = await WsTestClient.open(stack.url, { key: stack.keys.all });
    client.send({ type: 'subscribe', id: 'o', topics: [ORDERS] });
    await client.next((f) => f.type === 'ack', 10_000);
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await stack?.close();
  });

  it('resolves an insert whose answer was lost from the order stream, spending no order search', async () => {
    const { state } = stack.sandbox;
    const searchesBefore = state.counter('exchange.calls.searchOrders');
    state.setFaults({ exchangeAnswerFaults: { insertOrder: { every: 1, drop: 1, hold: 0, holdMs: 0 } } });
    const res = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 12, { clordId: 'stream-lost-1' }),
    );
    state.setFaults({ exchangeAnswerFaults: {} });
    expect(res.status).toBe(202);
    expect(await json(res)).toMatchObject({ state: 'PENDING', clordId: 'stream-lost-1' });
    expect(state.counter('exchange.answersDropped.insertOrder')).toBe(1);

    const lookup = await eventually(
      async () => json(await get('/orders/clord/stream-lost-1')),
      (body) => body.state === 'DONE',
      20_000,
      200,
    );
    const [order] = state.engine
      .searchOrders({ accounts: [PARTICIPANT] })
      .order.filter((o: { clordId: string }) => o.clordId === 'stream-lost-1');
    expect(lookup).toMatchObject({ state: 'DONE', status: 200, answer: { orderId: order!.id } });
    expect(state.counter('exchange.calls.searchOrders')).toBe(searchesBefore);
    expect(state.counter('exchange.calls.insertOrder')).toBe(1);
    // The outcome reached the client's order topic.
    await client.next((f) => f.topic === ORDERS && f.data.execution?.order?.clordId === 'stream-lost-1', 10_000);

    // The key is settled first, then its `resolved` record is written.
    const records = await eventually(
      () => timeline('stream-lost-1'),
      (r) => r.some((record) => record.kind === 'resolved'),
      10_000,
      100,
    );
    expect(records.map((r) => r.kind)).toEqual(expect.arrayContaining(['received', 'unknown', 'stream', 'resolved']));
    expect(records.find((r) => r.kind === 'resolved')!.data.via).toBe('order stream');
    expect(streamEvents(records)).toContain('EXECUTION_TYPE_NEW');
  }, 60_000);

  it("journals an order's whole life: received, answer, acknowledged, then its fills", async () => {
    const { engine } = stack.sandbox.state;
    const res = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 3, 31, { clordId: 'stream-fill-1' }),
    );
    expect(res.status).toBe(200);
    const { orderId } = await json(res);
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 31,
      timeInForce: GTC,
      account: COUNTERPARTY,
    });
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 2,
      price: 31,
      timeInForce: GTC,
      account: COUNTERPARTY,
    });
    const records = await eventually(
      () => timeline('stream-fill-1'),
      (r) => streamEvents(r).includes('EXECUTION_TYPE_FILL'),
      20_000,
      200,
    );
    expect(records[0]!.kind).toBe('received');
    expect(records.map((r) => r.kind)).toContain('answer');
    expect(streamEvents(records)).toEqual(['EXECUTION_TYPE_NEW', 'EXECUTION_TYPE_PARTIAL_FILL', 'EXECUTION_TYPE_FILL']);
    expect(
      records.filter((r) => r.kind === 'stream').every((r) => r.orderId === orderId && r.clordId === 'stream-fill-1'),
    ).toBe(true);
    expect(records.filter((r) => r.data.type?.endsWith('FILL')).map((r) => r.data.lastShares)).toEqual(['1', '2']);
    // The same timeline by the exchange's order id.
    const byOrderId = (await json(await get(`/orders/timeline?orderId=${orderId}`))) as { records: TimelineRecord[] };
    expect(byOrderId.records.map((r) => r.kind)).toEqual(records.map((r) => r.kind));
  }, 60_000);

  it('shows a reject the exchange sent on the stream after its 200', async () => {
    const { engine } = stack.sandbox.state;
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 1,
      price: 44,
      timeInForce: GTC,
      account: COUNTERPARTY,
    });
    // Post-only against a resting contra order: the exchange answers 200 with an order id, then rejects it.
    const res = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 45, { clordId: 'stream-reject-1', participateDontInitiate: true }),
    );
    expect(res.status).toBe(200);
    const { orderId } = await json(res);
    expect(orderId).toEqual(expect.any(String));
    const records = await eventually(
      () => timeline('stream-reject-1'),
      (r) => streamEvents(r).includes('EXECUTION_TYPE_REJECTED'),
      20_000,
      200,
    );
    const reject = records.find((r) => r.data.type === 'EXECUTION_TYPE_REJECTED')!;
    expect(reject).toMatchObject({
      kind: 'stream',
      orderId,
      clordId: 'stream-reject-1',
      data: { orderRejectReason: expect.stringMatching(/^ORD_REJECT_REASON_/) },
    });
    expect(records.map((r) => r.kind)).toEqual(expect.arrayContaining(['received', 'answer', 'stream']));
  }, 60_000);

  it('reads a retail order call outcome by its Idempotency-Key, for the client that sent it only', async () => {
    const order = {
      marketSlug: 'aec-nfl-gb-chi-2026-11-22',
      intent: 'ORDER_INTENT_BUY_LONG',
      price: { value: '0.20', currency: 'USD' },
      quantity: 1,
    };
    const created = await post(stack, '/retail/v1/orders', order, 'all', { 'idempotency-key': 'stream-retail-1' });
    expect(created.status).toBe(200);
    const answer = await json(created);
    const lookup = await get('/orders/key/stream-retail-1');
    expect(lookup.status).toBe(200);
    expect(await json(lookup)).toEqual({
      key: 'stream-retail-1',
      operation: 'retail.create',
      state: 'DONE',
      status: 200,
      answer,
    });
    const other = await fetch(`${stack.url}/orders/key/stream-retail-1`, {
      headers: { authorization: `Bearer ${stack.keys.reader}` },
    });
    expect(other.status).toBe(404);
    const missing = await get('/orders/key/never-sent');
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ code: 'NOT_FOUND' });
  }, 30_000);
});
