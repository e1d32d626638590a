import { exchangeTokenReady, limit, post } from './support/exchange-stack.js';
import { OTHER_TEAM_TRADER, type Stack, api, eventually, json, startStack, testJournal } from './support/stack.js';

// A call still in flight past journal.inFlightStaleMs is taken up by the resolver, which searched for
// its order and then marked the key UNKNOWN with an UPDATE that overwrote whatever the key held by then.
// When the call finished meanwhile (the exchange refused it 4xx, its answer stored for replay), the
// refusal was overwritten: the key stayed UNKNOWN, and the same request with the same key was answered
// 202 PENDING for the key's whole lifetime, never the exchange's answer. A key only turns UNKNOWN
// from in flight now.

const CLORD_ID = 'in-use-1';

describe('a call that finishes while the resolver takes it up as stale', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      clients: [OTHER_TEAM_TRADER],
      gateway: (config) => ({
        ...config,
        exchange: { requestTimeoutMs: 15_000 },
        journal: {
          ...(config.journal ?? testJournal()),
          inFlightStaleMs: 1_000,
          resolveSearchesPerMinute: 12,
          orderStream: 'never',
        },
        risk: { breaker: { orderStream: 'never' } },
      }),
    });
    await exchangeTokenReady(stack);
  }, 60_000);
  afterAll(() => stack?.close());

  it("keeps the exchange's refusal for the replay, never PENDING", async () => {
    const { state } = stack.sandbox;
    // Another team's order holds the clordId (the gateway never sends one of a team's twice).
    const open = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 20, { clordId: CLORD_ID }),
      OTHER_TEAM_TRADER.id,
    );
    expect(open.status).toBe(200);

    // The exchange refuses a second order of a clordId still open; its answer comes only after the call went
    // stale (a resolver pass runs every 5 s), and the resolver's order search answers later still. (The
    // answer is late, not the insert: the exchange rejects an insert it has not processed within 5 s.)
    state.setFaults({
      exchangeAnswerFaults: { insertOrder: { every: 1, drop: 0, hold: 1, holdMs: 7_000 } },
      exchangeDelayMs: { searchOrders: 7_000 },
    });
    const headers = { 'idempotency-key': 'k-in-use-2' };
    const body = limit('SIDE_BUY', 1, 21, { clordId: CLORD_ID });
    let refused: Response;
    try {
      refused = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      // The resolver's search, started while the call was stale, has answered by now.
      await eventually(
        async () => state.counter('exchange.calls.searchOrders'),
        (searches) => searches >= 1,
        15_000,
        100,
      );
      await new Promise((resolve) => setTimeout(resolve, 8_000));
    } finally {
      state.setFaults({ exchangeDelayMs: {}, exchangeAnswerFaults: {} });
    }
    const replay = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
    expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed') }).toEqual({
      status: refused.status,
      replayed: 'true',
    });
    expect((await json(await api(stack)('/orders/key/k-in-use-2'))).state).toBe('DONE');
    expect(state.counter('exchange.calls.insertOrder')).toBe(2);
    expect(state.counter('exchange.answersHeld.insertOrder')).toBe(1);
    // Nor does the resolver journal an outcome of its own for a call that had finished (the order's
    // clordId names only the first order, its answer, and the refused call's own records).
    const timeline = await json(await api(stack)(`/orders/timeline?clordId=${CLORD_ID}`));
    expect(timeline.records.filter((record: { kind: string }) => record.kind === 'resolved')).toEqual([]);
  }, 90_000);
});
