import { post } from './support/exchange-stack.js';
import { type Stack, eventually, json, startStack, testJournal } from './support/stack.js';

// A retail create whose answer was lost is resolved from the account's order channel, taking only an
// order no other call made. Before, "made by another call" was any journal record naming the order id:
// the `received` record of a cancel of that very order (the client cancelling what it found among its
// open orders while the create was PENDING) hid it, and once final the create was resolved 409
// ORDER_NOT_PLACED, though its order existed and had filled in part: the client was told to place it
// again with a new key.

const MARKET = 'aec-nfl-det-min-2026-11-22';
const HEDGE = { 'x-retail-account': 'hedge' };
const usd = (value: string) => ({ value, currency: 'USD' });

interface OpenOrder {
  id: string;
  intent: string;
  price?: { value: string };
}

describe('an UNKNOWN retail create whose order the client cancels before it is resolved', () => {
  let stack: Stack;
  const get = (path: string) =>
    fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.keys.all}` } });

  beforeAll(async () => {
    stack = await startStack({
      gateway: (config) => ({
        ...config,
        journal: { ...(config.journal ?? testJournal()), resolveSearchesPerMinute: 12 },
      }),
    });
  }, 60_000);
  afterAll(() => stack?.close());

  it('is resolved with the order it made (partly filled, then cancelled), never as not placed', async () => {
    const { state } = stack.sandbox;
    // One contract of liquidity from the other account, and an ordinary order of this one: its order channel is held from then on.
    const ask = { marketSlug: MARKET, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.40'), quantity: 1 };
    expect((await post(stack, '/retail/v1/orders', ask, 'all', HEDGE)).status).toBe(200);
    const warm = { marketSlug: MARKET, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.05'), quantity: 1 };
    expect((await post(stack, '/retail/v1/orders', warm)).status).toBe(200);
    await eventually(
      async () => [...state.retail.connections].filter((connection) => connection.subscriptionCount > 0).length,
      (subscribed) => subscribed >= 1,
      10_000,
    ).catch(() => undefined);

    const order = { marketSlug: MARKET, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.40'), quantity: 2 };
    const headers = { 'idempotency-key': 'create-then-cancelled-1' };
    const createsBefore = state.counter('retail.route.createOrder');
    state.retail.faults.dropAnswers.createOrder = 1;
    const res = await post(stack, '/retail/v1/orders', order, 'all', headers);
    expect(res.status).toBe(202);

    // The client finds the order among its open orders (one of two filled) and cancels the rest.
    const open = (await json(await get(`/retail/v1/orders/open?slugs=${MARKET}`))).orders as OpenOrder[];
    const made = open.filter((o) => o.intent === 'ORDER_INTENT_BUY_LONG' && Number(o.price?.value) === 0.4);
    expect(made).toHaveLength(1);
    const id = made[0]!.id;
    const cancelled = await post(stack, `/retail/v1/order/${id}/cancel`, { marketSlug: MARKET });
    expect(cancelled.status).toBe(200);

    const lookup = await eventually(
      async () => json(await get('/orders/key/create-then-cancelled-1')),
      (body) => body.state === 'DONE',
      40_000,
      200,
    );
    expect({ status: lookup.status, code: lookup.answer?.code, id: lookup.answer?.id }).toEqual({
      status: 200,
      code: undefined,
      id,
    });
    expect(state.engine.order(id)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });
    expect(state.counter('retail.route.createOrder')).toBe(createsBefore + 1);
  }, 90_000);
});
