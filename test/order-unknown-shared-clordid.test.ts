import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Json, type Stack, eventually, json } from './support/stack.js';

// Two teams trade on one participant, and a clordId is unique only among a participant's open orders
// (upstream-facts "Order safety"): each team may send the same clordId. Before, an UNKNOWN insert was
// settled with whatever order its clordId named on the participant. Team trading's insert never reached
// the exchange; team platform's, at another price, was placed and its answer lost. Trading's call was
// answered 200 with platform's order, and platform's 409 ORDER_NOT_PLACED while its order rested.
// Now an order goes to a pending call only when it shows the terms that call sent, and no other
// unfinished call on the participant sent its clordId with terms it shows too.

const trader = (id: string, team: string) => ({
  id,
  team,
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
});
const DROP_ANSWER = { every: 1, drop: 1, hold: 0, holdMs: 0 };
const INSERT = '/exchange/v1/trading/orders';

describe('UNKNOWN inserts of two teams under one clordId on one participant', () => {
  let stack: Stack;
  const outcome = async (client: string, key: string): Promise<Json> =>
    json(
      await fetch(`${stack.url}/orders/key/${encodeURIComponent(key)}`, {
        headers: { authorization: `Bearer ${stack.keys[client]}` },
      }),
    );
  const ordersOf = (clordId: string) =>
    stack.sandbox.state.engine
      .searchOrders({ accounts: [PARTICIPANT] })
      .order.filter((order: { clordId: string }) => order.clordId === clordId);
  /** The sandbox ran one call's insert (request lost) and dropped the other's answer. */
  const sendBoth = async (clordId: string, botPrice: number, platPrice: number) => {
    const { state } = stack.sandbox;
    state.setFaults({ exchangeLostRequests: { insertOrder: 1 } });
    const bot = await post(stack, INSERT, limit('SIDE_BUY', 1, botPrice, { clordId }), 'bot', {
      'idempotency-key': `bot-${clordId}`,
    });
    state.setFaults({ exchangeAnswerFaults: { insertOrder: DROP_ANSWER } });
    const plat = await post(stack, INSERT, limit('SIDE_BUY', 1, platPrice, { clordId }), 'plat', {
      'idempotency-key': `plat-${clordId}`,
    });
    state.setFaults({ exchangeAnswerFaults: {} });
    expect([bot.status, plat.status]).toEqual([202, 202]);
    const orders = ordersOf(clordId);
    expect(orders).toHaveLength(1);
    return (orders[0] as { id: string }).id;
  };

  beforeAll(async () => {
    stack = await startExchangeStack([trader('bot', 'trading'), trader('plat', 'platform')], {
      gateway: (config) => ({
        ...config,
        journal: { ...config.journal, notPlacedAfterMs: 10_000, resolveSearchesPerMinute: 12 },
      }),
    });
  }, 60_000);
  afterAll(() => stack?.close());

  it("gives the order to the call that sent its terms, never to the other team's call", async () => {
    const placed = await sendBoth('shared-1', 12, 13);

    const plat = await eventually(
      () => outcome('plat', 'plat-shared-1'),
      (body) => body.state === 'DONE',
      45_000,
      250,
    );
    expect(plat).toMatchObject({ state: 'DONE', status: 200, answer: { orderId: placed } });

    // Trading's request never reached the exchange: proven not placed by the complete search, never given platform's order.
    const bot = await eventually(
      () => outcome('bot', 'bot-shared-1'),
      (body) => body.state === 'DONE',
      45_000,
      250,
    );
    expect(bot).toMatchObject({ state: 'DONE', status: 409, answer: { code: 'ORDER_NOT_PLACED' } });

    // Neither replay sends anything: one insert reached the exchange.
    const replay = await post(stack, INSERT, limit('SIDE_BUY', 1, 12, { clordId: 'shared-1' }), 'bot', {
      'idempotency-key': 'bot-shared-1',
    });
    expect(replay.status).toBe(409);
    expect(ordersOf('shared-1')).toHaveLength(1);
  }, 120_000);

  it('settles neither call while both sent the terms the one order shows', async () => {
    await sendBoth('shared-2', 14, 14);
    const { state } = stack.sandbox;
    // Past the not-placed margin, several searches have shown the order: still neither call's.
    const searches = state.counter('exchange.calls.searchOrders');
    await eventually(
      async () => state.counter('exchange.calls.searchOrders'),
      (count) => count >= searches + 4,
      60_000,
      250,
    );
    expect(await outcome('bot', 'bot-shared-2')).toMatchObject({ state: 'PENDING' });
    expect(await outcome('plat', 'plat-shared-2')).toMatchObject({ state: 'PENDING' });
    expect(ordersOf('shared-2')).toHaveLength(1);
  }, 120_000);
});
