import { COUNTERPARTY, SYMBOL, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json, testJournal } from './support/stack.js';

// An UNKNOWN exchange insert whose order shows terms the exchange set itself (found by a probe). A
// market-to-limit that carries a price rests its remainder at its fill's price; a cash order is sized on
// entry and made immediate-or-cancel. The resolver's search found the order, took it for another call's
// (its price or time in force differed from the sent ones) and, after notPlacedAfterMs, answered the key
// 409 ORDER_NOT_PLACED, the order resting or filled: a client told so sends it again. After a 502 (the
// operator's load balancer answered, the exchange ran the insert) the same proof freed the key, and the
// client's plain retry under it made a second order. Now those terms are not compared, and an order no
// call was given whose terms differ leaves the call UNKNOWN rather than proving it unplaced.

const NOT_PLACED_AFTER_MS = 10_000;
const lostAnswer = { every: 1, drop: 1, hold: 0, holdMs: 0 };
/** A market-to-limit buy sent good-till-cancel: what each case sends, with its size (a quantity or cash) and clordId. */
const MTL_BUY = {
  symbol: SYMBOL,
  side: 'SIDE_BUY',
  type: 'ORDER_TYPE_MARKET_TO_LIMIT',
  timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
};

const ask = (stack: Stack, qty: number, price: number, clordId: string) =>
  stack.sandbox.state.engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_SELL',
    account: COUNTERPARTY,
    orderQty: qty,
    price,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    clordId,
  });

/** A gateway that searches for UNKNOWN inserts' orders as often as it may, with the order stream held for them or never held. */
const resolvingStack = (orderStream: 'never' | 'while-unknown') =>
  startExchangeStack([], {
    gateway: (config) => ({
      ...config,
      journal: {
        ...(config.journal ?? testJournal()),
        orderStream,
        resolveSearchesPerMinute: 12,
        notPlacedAfterMs: NOT_PLACED_AFTER_MS,
      },
      risk: {
        ...config.risk,
        breaker: { ...config.risk?.breaker, ...(orderStream === 'never' ? { orderStream: 'never' as const } : {}) },
      },
    }),
  });

const ordersOf = (stack: Stack, clordId: string): { id: string }[] =>
  stack.sandbox.state.engine
    .searchOrders({ accounts: [PARTICIPANT] })
    .order.filter((order: { clordId: string }) => order.clordId === clordId);

describe.each(['never', 'while-unknown'] as const)(
  'an UNKNOWN insert whose order shows terms the exchange set (order stream %s)',
  (orderStream) => {
    let stack: Stack;
    const get = (path: string) =>
      fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.keys.all}` } });

    beforeAll(async () => {
      stack = await resolvingStack(orderStream);
    });
    afterAll(() => stack?.close());

    /** Sends `body` with its answer lost, checks the exchange holds its one order, and waits for the key's answer. */
    async function lostThenResolved(body: Record<string, string>) {
      const { state } = stack.sandbox;
      state.setFaults({ exchangeAnswerFaults: { insertOrder: lostAnswer } });
      const lost = await post(stack, '/exchange/v1/trading/orders', body, 'all', { 'idempotency-key': body.clordId! });
      state.setFaults({ exchangeAnswerFaults: {} });
      expect(lost.status).toBe(202);
      const orders = ordersOf(stack, body.clordId!);
      expect(orders).toHaveLength(1);
      const lookup = await eventually(
        async () => json(await get(`/orders/key/${body.clordId}`)),
        (found) => found.state === 'DONE',
        90_000,
        500,
      );
      expect({ status: lookup.status, answer: lookup.answer }).toEqual({
        status: 200,
        answer: { orderId: orders[0]!.id },
      });
    }

    it('finds a market-to-limit with a price whose remainder rests at its fill price', async () => {
      ask(stack, 1, 55, `cp-mtl-${orderStream}`);
      await lostThenResolved({
        ...MTL_BUY,
        orderQty: '2',
        price: '60',
        clordId: `mtl-${orderStream}`,
      });
    });

    it('finds a cash order the exchange sized and made immediate-or-cancel', async () => {
      ask(stack, 2, 56, `cp-cash-${orderStream}`);
      await lostThenResolved({
        ...MTL_BUY,
        cashOrderQty: '56',
        clordId: `cash-${orderStream}`,
      });
    });
  },
);

describe('a cash order answered 502 while the exchange ran it, retried under its key', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await resolvingStack('never');
  });
  afterAll(() => stack?.close());

  it('is sent once, and the retry gets its order', async () => {
    const { state } = stack.sandbox;
    ask(stack, 4, 56, 'cp-ask-502');
    const clordId = 'cash-502';
    const body = {
      ...MTL_BUY,
      cashOrderQty: '56',
      clordId,
    };
    const headers = { 'idempotency-key': clordId };
    state.setFaults({ exchangeBadGateway: { insertOrder: { count: 1, runAfterMs: 200 } } });
    const first = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
    expect(first.status).toBe(202);
    // The client retries the identical request under its key, as the 202 asks, until it gets an answer.
    const last = await eventually(
      async () => {
        const retry = await post(stack, '/exchange/v1/trading/orders', body, 'all', headers);
        return { status: retry.status, body: await json(retry) };
      },
      (answer) => answer.status !== 202 && answer.status !== 409,
      90_000,
      1_000,
    );
    const orders = ordersOf(stack, clordId);
    expect(orders).toHaveLength(1);
    expect(last).toEqual({ status: 200, body: { orderId: orders[0]!.id } });
  });
});
