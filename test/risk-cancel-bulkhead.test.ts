import { SYMBOL, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json } from './support/stack.js';

// A cancel is never blocked by a gateway rule, the bulkheads included: a cancel is counted among the
// calls in flight, never refused. But a cancel of an order the order stream does not show working asks
// the exchange for the participant's open orders first (who owns the id), and that read took its place
// as an ordinary call: while the team's calls in flight stood at their bound (its own slow reads), the
// cancel waited `bulkheads.queueMs` and was answered 429 IN_FLIGHT_LIMITED, nothing cancelled.

const BOT = {
  id: 'bot',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const, 'read:positions' as const],
  participants: [PARTICIPANT],
};

describe("a cancel's ownership read and the bulkheads", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([BOT], {
      gateway: (config) => ({ ...config, bulkheads: { perTeam: 1, queueMs: 200 } }),
    });
    // The exchange token is fetched before the bound matters.
    expect((await api(stack, 'bot')('/exchange/v1/trading/orders/open')).status).toBe(200);
  });
  afterAll(() => stack?.close());

  it("cancels while the team's calls in flight stand at their bound", async () => {
    const { state } = stack.sandbox;
    // An order resting at the exchange that this instance's order stream never showed (sent by another tool).
    const resting = state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      account: PARTICIPANT,
      orderQty: 1,
      price: 6,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    });
    const orderId = resting.orderId;
    state.setFaults({ exchangeDelayMs: { positions: 2_000 } });
    try {
      // The team's one place is held by a slow read.
      const slow = api(stack, 'bot')('/exchange/v1/positions');
      await eventually(
        async () => state.counter('exchange.calls.positions'),
        (n) => n === 1,
      );
      const cancel = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'bot');
      expect({ status: cancel.status, body: cancel.status === 200 ? {} : await json(cancel) }).toEqual({
        status: 200,
        body: {},
      });
      expect(state.engine.openOrders(PARTICIPANT).map((order) => order.id)).not.toContain(orderId);
      expect((await slow).status).toBe(200);
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
  });
});
