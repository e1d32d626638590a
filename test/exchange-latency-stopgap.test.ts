import { exchangeTokenReady, limit, post } from './support/exchange-stack.js';
import { type Stack, json, startStack } from './support/stack.js';

// The exchange rejects a new order or a cancel/replace it received but has not processed within 5 s
// ("Global Rate Limit Exceeded", upstream-facts), so that it cannot fill stale; a pure cancel is never
// rejected so. The sandbox placed a held insert however late it ran: kinder than the exchange, so no test
// could see the gateway meet the real stopgap on a slow exchange. Now a slow exchange is the real one.

describe('an exchange slower than its own 5 s latency stopgap', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      gateway: (config) => ({
        ...config,
        exchange: { requestTimeoutMs: 15_000 },
        limits: { ...config.limits, maxDecisionAgeMs: 30_000 },
      }),
    });
    await exchangeTokenReady(stack);
  }, 60_000);
  afterAll(() => stack?.close());

  it('rejects the held insert unprocessed (ORDER_REJECTED_LATENCY, no order, the key free) and runs the held cancel', async () => {
    const { state } = stack.sandbox;
    const resting = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 20, { clordId: 'rests' }));
    expect(resting.status).toBe(200);
    const { orderId } = (await json(resting)) as { orderId: string };

    state.setFaults({ exchangeDelayMs: { insertOrder: 6_000, cancelOrder: 6_000 } });
    const headers = { 'idempotency-key': 'k-late-1' };
    const body = limit('SIDE_BUY', 1, 21, { clordId: 'late-1' });
    let cancel: Response;
    try {
      const [insert, canceled] = await Promise.all([
        post(stack, '/exchange/v1/trading/orders', body, 'all', headers),
        post(stack, '/exchange/v1/trading/orders/cancel', { orderId }),
      ]);
      cancel = canceled;
      expect(insert.status).toBe(503);
      expect(await json(insert)).toMatchObject({ code: 'ORDER_REJECTED_LATENCY', retryable: true });
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
    expect(state.engine.searchOrders({ clordId: 'late-1' }).order).toEqual([]);
    expect(state.counter('exchange.latency-rejected.insertOrder')).toBe(1);
    expect(state.counter('exchange.calls.insertOrder')).toBe(1);
    // The cancel ran, late: a pure cancel is never rejected by the stopgap.
    expect(cancel.status).toBe(200);
    expect(state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });

    // Not processed, so the key is free: the same request under it is sent again, and placed.
    const again = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
    expect(again.status).toBe(200);
    expect(state.engine.searchOrders({ clordId: 'late-1' }).order).toHaveLength(1);
  }, 60_000);
});
