import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json, testJournal } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// Two bots of one team on one participant (found by a probe). twin-a's insert is placed by the exchange but
// its answer is slow to come back; twin-a's dead-man's switch lapses meanwhile. The run's first read saw
// the order, the journal did not yet show twin-a was given it (no answer yet), and that "not given" was
// kept for the whole run: after waiting out the call in flight, the last pass left the order resting. Now
// an order not found given is looked up again on each pass.
const TWINS = ['twin-a', 'twin-b'].map((id) => ({
  id,
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
}));
const journal = testJournal();
const withJournal = (config: GatewayConfigInput): GatewayConfigInput => ({ ...config, journal });
const HOLD_MS = 3_000;

describe("a dead-man's switch on a shared participant, and an insert whose answer is late", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(TWINS, { gateway: withJournal });
  });
  afterAll(() => stack?.close());

  it("cancels twin-a's order that rested while its answer was on its way", async () => {
    // Warm the token and stream: one order placed and cancelled.
    const warm = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 3, { clordId: 'warm' }),
      'twin-a',
    );
    expect(warm.status).toBe(200);
    const warmId = ((await json(warm)) as { orderId: string }).orderId;
    expect((await post(stack, '/exchange/v1/trading/orders/cancel', { orderId: warmId }, 'twin-a')).status).toBe(200);
    // A sibling's order that must stay.
    const sib = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 6, { clordId: 'b-1' }), 'twin-b');
    expect(sib.status).toBe(200);

    stack.sandbox.state.setFaults({
      exchangeAnswerFaults: { insertOrder: { every: 1, drop: 0, hold: 1, holdMs: HOLD_MS } },
    });
    const late = post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 4, { clordId: 'a-late' }), 'twin-a');
    const placed = await eventually(
      async () => stack.sandbox.state.engine.openOrders(PARTICIPANT).find((order) => order.clordId === 'a-late'),
      Boolean,
      5_000,
    );
    const arm = await post(stack, '/risk/v1/dead-man-switch', { seconds: 1 }, 'twin-a');
    expect(arm.status).toBe(200);
    const answered = await late;
    expect(answered.status).toBe(200);
    stack.sandbox.state.setFaults({ exchangeAnswerFaults: {} });
    await eventually(
      async () => stack.logs.some((line) => line.includes("dead-man's switch of twin-a fired")),
      Boolean,
      15_000,
    );
    const line = stack.logs.find((l) => l.includes("dead-man's switch of twin-a fired"));
    const open = stack.sandbox.state.engine.openOrders(PARTICIPANT).map((order) => order.clordId);
    expect({ line, open }).toEqual({ line: expect.any(String), open: ['b-1'] });
    expect(placed!.id).toBe(((await json(answered)) as { orderId: string }).orderId);
  });
});
