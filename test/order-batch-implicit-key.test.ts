import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack } from './support/stack.js';

// Without an Idempotency-Key, an insert's own clordId is its key: a resend never reaches the exchange
// twice (README "Idempotent order entry"). A batch insert took a fresh gateway key instead, so a bot that
// resent a batch whose answer was lost (202 PENDING) sent it again: the exchange takes the clordId of a
// finished order again (upstream-facts "Order safety"), and each immediate-or-cancel order of the batch
// was made twice.

const BOT = {
  id: 'bot',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
};
const ioc = (clordId: string) => limit('SIDE_BUY', 1, 5, { clordId, timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' });

describe('a batch insert resent without an Idempotency-Key', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([BOT]);
  });
  afterAll(() => stack?.close());

  it('is never sent twice: the same clordIds are its key', async () => {
    const { state } = stack.sandbox;
    const batch = { requests: [ioc('batch-a'), ioc('batch-b')] };
    state.setFaults({ exchangeAnswerFaults: { insertBatch: { every: 1, drop: 1, hold: 0, holdMs: 0 } } });
    let first: Response;
    try {
      first = await post(stack, '/exchange/v1/trading/orders/list', batch, 'bot');
    } finally {
      state.setFaults({ exchangeAnswerFaults: {} });
    }
    expect(first.status).toBe(202);
    const again = await post(stack, '/exchange/v1/trading/orders/list', batch, 'bot');
    expect([200, 202, 409]).toContain(again.status);
    expect(state.counter('exchange.calls.insertBatch')).toBe(1);
    expect(state.engine.searchOrders({ clordId: 'batch-a' }).order).toHaveLength(1);
  });
});
