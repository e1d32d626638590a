import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

const SYMBOL = 'aec-nfl-det-min-2026-11-22';
const ORDERS = `exchange.orders.${PARTICIPANT}`;
const GTC = 'TIME_IN_FORCE_GOOD_TILL_CANCEL' as const;
const CARRIER = 'CreateOrderSubscription';

describe('exchange order updates on /ws', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ clients: [{ id: 'alice-desk', scopes: ['read:orders'], participants: [PARTICIPANT] }] });
  });
  afterAll(() => stack.close());

  it('sends the working orders, then every execution of the allowed participant, and refuses a foreign one', async () => {
    const { engine } = stack.sandbox.state;
    const resting = engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      orderQty: 3,
      price: 20,
      timeInForce: GTC,
      account: PARTICIPANT,
    });
    engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      orderQty: 3,
      price: 21,
      timeInForce: GTC,
      account: OTHER_PARTICIPANT,
    });
    const client = await WsTestClient.open(stack.url, { key: stack.keys['alice-desk'] });
    try {
      client.send({ type: 'subscribe', id: 'o', topics: [ORDERS, `exchange.orders.${OTHER_PARTICIPANT}`] });
      expect(await client.next((f) => f.type === 'error')).toMatchObject({
        code: 'forbidden',
        topic: `exchange.orders.${OTHER_PARTICIPANT}`,
        message: expect.stringContaining(OTHER_PARTICIPANT),
      });
      expect(await client.next((f) => f.type === 'ack', 10_000)).toMatchObject({ topics: [ORDERS] });
      const [snapshot] = client.topic(ORDERS);
      expect(snapshot).toMatchObject({ type: 'snapshot', seq: 1 });
      expect(snapshot!.data.orders.map((o: { id: string }) => o.id)).toEqual([resting.orderId]); // alice's only

      // Insert, a partial fill against another firm, then a cancel; bob's order never shows here.
      const order = engine.insert({
        symbol: SYMBOL,
        side: 'SIDE_BUY',
        orderQty: 5,
        price: 40,
        timeInForce: GTC,
        account: PARTICIPANT,
      });
      engine.insert({
        symbol: SYMBOL,
        side: 'SIDE_BUY',
        orderQty: 1,
        price: 39,
        timeInForce: GTC,
        account: OTHER_PARTICIPANT,
      });
      engine.insert({
        symbol: SYMBOL,
        side: 'SIDE_SELL',
        orderQty: 2,
        price: 40,
        timeInForce: GTC,
        account: 'firms/OTHERFIRM/users/carol',
      });
      engine.cancel({ account: PARTICIPANT, orderId: order.orderId });
      const frames = await (async () => {
        await client.next((f) => f.topic === ORDERS && f.data.execution?.type === 'EXECUTION_TYPE_CANCELED');
        return client.topic(ORDERS);
      })();
      expect(frames.map((f) => f.data.execution?.type ?? 'snapshot')).toEqual([
        'snapshot',
        'EXECUTION_TYPE_NEW',
        'EXECUTION_TYPE_PARTIAL_FILL',
        'EXECUTION_TYPE_CANCELED',
      ]);
      expect(frames.slice(1).every((f) => f.type === 'update' && f.data.execution.order.id === order.orderId)).toBe(
        true,
      );
      expect(frames[2]!.data.execution).toMatchObject({ lastShares: '2', lastPx: '40' });
      expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4]);

      // A late joiner gets the working orders as they are now: the cancelled one is gone.
      const late = await WsTestClient.open(stack.url, { key: stack.keys.all });
      try {
        late.send({ type: 'subscribe', id: 'l', topics: [ORDERS] });
        await late.next((f) => f.type === 'ack', 10_000);
        expect(late.topic(ORDERS)[0]!.data.orders.map((o: { id: string }) => o.id)).toEqual([resting.orderId]);
      } finally {
        late.close();
      }
      expect(stack.sandbox.state.streams.view().byCall[CARRIER]).toBe(1);
    } finally {
      client.close();
    }
  }, 30_000);

  it('resyncs with a fresh snapshot after the exchange cuts the order stream', async () => {
    const { state } = stack.sandbox;
    const client = await WsTestClient.open(stack.url, { key: stack.keys['alice-desk'] });
    try {
      client.send({ type: 'subscribe', id: 'o', topics: [ORDERS] });
      await client.next((f) => f.type === 'ack', 10_000);
      const opened = state.counter(`grpc.streams.opened.${CARRIER}`);
      const cut = await fetch(`${stack.sandbox.urls.exchange}/_sandbox/grpc/streams/cut`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'UNAVAILABLE', call: CARRIER }),
      });
      expect(await cut.json()).toEqual({ cut: 1 });
      const resync = await client.next((f) => f.topic === ORDERS && f.type === 'resync', 10_000);
      expect(Array.isArray(resync.data.orders)).toBe(true);
      const order = state.engine.insert({
        symbol: SYMBOL,
        side: 'SIDE_BUY',
        orderQty: 1,
        price: 11,
        timeInForce: GTC,
        account: PARTICIPANT,
      });
      const update = await client.next((f) => f.topic === ORDERS && f.type === 'update');
      expect(update.data.execution.order.id).toBe(order.orderId);
      expect(state.counter(`grpc.streams.opened.${CARRIER}`)).toBe(opened + 1);
    } finally {
      client.close();
    }
  }, 30_000);
});
