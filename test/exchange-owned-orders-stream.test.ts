import { limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// A cancel or replace names an order by id, which the exchange resolves firm-wide, so the gateway checks
// the id is the caller's participant's. It asked the exchange for the participant's open orders before
// every cancel: a cancel waited on that read, and failed when it failed. Now the order stream each
// instance holds answers for the orders it shows working; the read remains for ids it does not show.

const CLIENTS = [
  {
    id: 'alice-bot',
    team: 'platform',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
  {
    id: 'bob-bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [OTHER_PARTICIPANT],
  },
];
const CANCEL = '/exchange/v1/trading/orders/cancel';
const lostAnswer = { every: 1, drop: 1, hold: 0, holdMs: 0 };

describe('order ownership from the order stream', () => {
  let stack: Stack;
  const sockets: WsTestClient[] = [];

  /** Inserts a resting buy as `clientId` and waits until the gateway's order stream shows it working. */
  async function working(clientId: string, participant: string, clordId: string): Promise<string> {
    const socket = await WsTestClient.open(stack.url, { key: stack.keys[clientId] });
    sockets.push(socket);
    await socket.subscribe([`exchange.orders.${participant}`]);
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 11, { clordId }), clientId);
    expect(placed.status).toBe(200);
    const { orderId } = (await json(placed)) as { orderId: string };
    await socket.next(
      (frame) => JSON.stringify(frame).includes(`"id":"${orderId}"`) && frame.type === 'update',
      10_000,
    );
    return orderId;
  }

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
  });
  afterEach(() => {
    stack.sandbox.state.setFaults({ exchangeAnswerFaults: {} });
    stack.sandbox.state.streams.up();
  });
  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await stack?.close();
  });

  it("cancels the caller's own working order while the exchange's open-orders read fails", async () => {
    const orderId = await working('alice-bot', PARTICIPANT, 'own-1');
    stack.sandbox.state.setFaults({ exchangeAnswerFaults: { openOrders: lostAnswer } });
    const cancelled = await post(stack, CANCEL, { orderId }, 'alice-bot');
    expect(cancelled.status).toBe(200);
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });
  });

  it("refuses another participant's working order 404, sending nothing upstream, and leaves it working", async () => {
    const orderId = await working('bob-bot', OTHER_PARTICIPANT, 'other-1');
    const before = upstreamCalls(stack);
    const refused = await post(stack, CANCEL, { orderId }, 'alice-bot');
    expect(refused.status).toBe(404);
    expect(await json(refused)).not.toHaveProperty('account');
    expect(upstreamCalls(stack) - before).toBe(0);
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_NEW' });
  });

  it('an id the stream does not show is looked up at the exchange: while that read fails, a clear problem and nothing cancelled', async () => {
    stack.sandbox.state.setFaults({ exchangeAnswerFaults: { openOrders: lostAnswer } });
    const before = stack.sandbox.state.counterSnapshot()['exchange.calls.cancelOrder'] ?? 0;
    const refused = await post(stack, CANCEL, { orderId: 'O-not-on-the-stream' }, 'alice-bot');
    expect(refused.status).toBeGreaterThanOrEqual(502);
    expect(refused.status).toBeLessThanOrEqual(504);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(stack.sandbox.state.counterSnapshot()['exchange.calls.cancelOrder'] ?? 0).toBe(before);
  });

  // The order stream is down (the exchange's stream service refuses it) and the open-orders read fails:
  // nothing at the exchange can say whose an id is now. The gateway's own record of the insert can.
  describe('while the order stream is down and the open-orders read fails', () => {
    /** Inserts a resting buy as `clientId` while no order stream can show it. */
    async function unseen(clientId: string, clordId: string): Promise<string> {
      const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 11, { clordId }), clientId);
      expect(placed.status).toBe(200);
      return ((await json(placed)) as { orderId: string }).orderId;
    }

    beforeEach(() => {
      stack.sandbox.state.streams.down({ call: 'CreateOrderSubscription' });
    });

    it('cancels an order the gateway sent for the caller, recorded in the journal', async () => {
      const orderId = await unseen('alice-bot', 'unseen-own');
      stack.sandbox.state.setFaults({ exchangeAnswerFaults: { openOrders: lostAnswer } });
      const cancelled = await post(stack, CANCEL, { orderId }, 'alice-bot');
      expect({ status: cancelled.status, body: await cancelled.text() }).toMatchObject({ status: 200 });
      expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });
    });

    it('refuses, 404 and unsent, an order the gateway sent for another participant', async () => {
      const orderId = await unseen('bob-bot', 'unseen-other');
      stack.sandbox.state.setFaults({ exchangeAnswerFaults: { openOrders: lostAnswer } });
      const before = stack.sandbox.state.counterSnapshot()['exchange.calls.cancelOrder'] ?? 0;
      const refused = await post(stack, CANCEL, { orderId }, 'alice-bot');
      expect(refused.status).toBe(404);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(stack.sandbox.state.counterSnapshot()['exchange.calls.cancelOrder'] ?? 0).toBe(before);
      expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_NEW' });
    });
  });
});
