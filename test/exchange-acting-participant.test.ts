import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json } from './support/stack.js';

// A client may trade as each of its participants, naming one in an order's `account`. The whole request
// then acts for that participant: booked to it, and judged on it. Before, the risk checks judged the
// chosen participant (x-participant-id, else the client's first) whatever the body named, so under a
// reduce-only state a sell booked to a flat participant passed on another participant's long position.

const CLIENTS = [
  {
    id: 'duo',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const, 'read:positions' as const],
    participants: [PARTICIPANT, OTHER_PARTICIPANT],
  },
];

describe("an order's account decides the participant the request acts for", () => {
  let stack: Stack;
  const insert = (order: object) => post(stack, '/exchange/v1/trading/orders', order, 'duo');

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
  });
  afterAll(() => stack?.close());

  it('books an order to the participant its account names, and judges a reduce-only state on that participant', async () => {
    stack.sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 5,
      price: 60,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: COUNTERPARTY,
      clordId: 'carol-acting',
    });
    // The client's first participant buys 5: long 5. Its other participant holds nothing.
    expect((await insert(limit('SIDE_BUY', 5, 60, { clordId: 'long-first' }))).status).toBe(200);
    const booked = await insert(limit('SIDE_BUY', 1, 10, { clordId: 'second-rest', account: OTHER_PARTICIPANT }));
    expect(booked.status).toBe(200);
    expect(stack.sandbox.state.engine.order((await json(booked)).orderId)).toMatchObject({
      account: OTHER_PARTICIPANT,
    });

    expect(
      (await post(stack, '/admin/risk/states', { scope: 'client:duo', state: 'reduce-only', reason: 'acting test' }))
        .status,
    ).toBe(200);
    // A sell booked to the flat participant would open a short: refused, though the first participant is long.
    const sell = await insert(limit('SIDE_SELL', 3, 90, { clordId: 'second-short', account: OTHER_PARTICIPANT }));
    expect(sell.status).toBe(403);
    expect(await json(sell)).toMatchObject({ code: 'TRADING_REDUCE_ONLY', scope: 'client:duo' });
    // The same sell for the long participant reduces: accepted.
    expect((await insert(limit('SIDE_SELL', 3, 90, { clordId: 'first-reduce' }))).status).toBe(200);
    expect(
      (await post(stack, '/admin/risk/states', { scope: 'client:duo', state: 'active', reason: 'acting test done' }))
        .status,
    ).toBe(200);
  });

  it('refuses a batch whose orders name two participants, naming the field; nothing sent', async () => {
    const inserts = () => stack.sandbox.state.counterSnapshot()['exchange.calls.insertBatch'] ?? 0;
    const before = inserts();
    const res = await post(
      stack,
      '/exchange/v1/trading/orders/list',
      {
        requests: [
          limit('SIDE_BUY', 1, 5, { clordId: 'mixed-0' }),
          limit('SIDE_BUY', 1, 5, { clordId: 'mixed-1', account: OTHER_PARTICIPANT }),
        ],
      },
      'duo',
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [expect.objectContaining({ path: 'body.requests.1.account' })],
    });
    expect(inserts()).toBe(before);
  });
});
