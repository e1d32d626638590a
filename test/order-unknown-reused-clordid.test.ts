import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Json, type Stack, api, eventually, json } from './support/stack.js';

// The exchange takes a closed order's clordId again as a new order (upstream-facts "Order safety"). An
// insert whose answer was lost is resolved from the order stream by participant and clordId; the stream
// had already shown the client's earlier, closed order under that clordId, and the pending call was
// settled at once with that old order's id: the client was told its new order was the old one, while the
// new order came to rest at the exchange with no call holding it. (The gateway sends a clordId once a key
// lifetime for a team: the earlier order here is another team's on the same participant.)

const BOT = {
  id: 'bot',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
};

describe('an UNKNOWN insert under a reused clordId', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([BOT], {
      gateway: (config) => ({
        ...config,
        exchange: { ...config.exchange, requestTimeoutMs: 500 },
        journal: { ...config.journal, orderStream: 'always' },
      }),
    });
  });
  afterAll(() => stack?.close());

  it('is resolved with the order it made, never with an earlier order the clordId named', async () => {
    const first = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 8, { clordId: 'reuse-1' }),
      'all',
      { 'idempotency-key': 'first-call', 'x-participant-id': PARTICIPANT },
    );
    expect(first.status).toBe(200);
    const { orderId: oldOrder } = (await json(first)) as { orderId: string };
    expect(
      (
        await post(stack, '/exchange/v1/trading/orders/cancel', { orderId: oldOrder }, 'all', {
          'x-participant-id': PARTICIPANT,
        })
      ).status,
    ).toBe(200);
    // The order stream has shown the old order closed.
    await eventually(
      async () =>
        ((await json(await api(stack, 'all')('/orders/timeline?clordId=reuse-1'))) as { records: Json[] }).records,
      (records) =>
        records.some(
          (record) =>
            record.kind === 'stream' && record.orderId === oldOrder && record.data?.type === 'EXECUTION_TYPE_CANCELED',
        ),
      10_000,
    );

    // The same clordId again, under another key; the exchange runs it only after the gateway gave up waiting.
    const { state } = stack.sandbox;
    state.setFaults({ exchangeDelayMs: { insertOrder: 1_500 } });
    let pending: Response;
    try {
      pending = await post(
        stack,
        '/exchange/v1/trading/orders',
        limit('SIDE_BUY', 2, 9, { clordId: 'reuse-1' }),
        'bot',
        {
          'idempotency-key': 'second-call',
        },
      );
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
    expect(pending.status).toBe(202);
    const newOrder = await eventually(
      async () => state.engine.openOrders(PARTICIPANT).find((order) => order.clordId === 'reuse-1')?.id,
      (id) => id !== undefined,
      10_000,
    );
    const outcome = await eventually(
      async () => (await json(await api(stack, 'bot')('/orders/key/second-call'))) as Json,
      (body) => body.state === 'DONE',
      15_000,
    );
    expect(outcome.answer).toEqual({ orderId: newOrder });
  });
});
