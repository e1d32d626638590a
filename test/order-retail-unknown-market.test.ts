import { post } from './support/exchange-stack.js';
import { type Stack, eventually, json, startStack, testJournal } from './support/stack.js';

// A retail MARKET create that carries a price (the retail API takes one), whose answer was lost after the
// retail API ran it (found by a probe). The order filled at the book's price; on the account's order
// channel it never showed the price the client sent, so the finder compared that price, never took the
// order, and once the call was final with the channel held throughout answered its key 409
// ORDER_NOT_PLACED: the client was told its filled order did not exist, and a resend makes a second one.
// A market order's price is not compared now.

const MARKET = 'aec-nfl-det-min-2026-11-22';
const HEDGE = { 'x-retail-account': 'hedge' };
const usd = (value: string) => ({ value, currency: 'USD' });

describe('an UNKNOWN retail market create that carried a price', () => {
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
  });
  afterAll(() => stack?.close());

  it('is found filled, never answered 409 ORDER_NOT_PLACED', async () => {
    const { state } = stack.sandbox;
    const resting = await post(
      stack,
      '/retail/v1/orders',
      { marketSlug: MARKET, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.40'), quantity: 2 },
      'all',
      HEDGE,
    );
    expect(resting.status).toBe(200);
    // An ordinary create first: the default account's order channel is held from it on.
    const warm = await post(stack, '/retail/v1/orders', {
      marketSlug: MARKET,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.05'),
      quantity: 1,
    });
    expect(warm.status).toBe(200);

    const order = {
      marketSlug: MARKET,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_MARKET',
      price: usd('0.45'),
      quantity: 1,
    };
    state.retail.faults.dropAnswers.createOrder = 1;
    const res = await post(stack, '/retail/v1/orders', order, 'all', { 'idempotency-key': 'market-1' });
    expect(res.status).toBe(202);
    expect(state.counter('retail.answersDropped.createOrder')).toBe(1);
    const markets = state.engine
      .searchOrders({})
      .order.filter((o: { symbol: string; type: string }) => o.symbol === MARKET && o.type !== 'ORDER_TYPE_LIMIT');
    expect(markets).toHaveLength(1);

    const lookup = await eventually(
      async () => json(await get('/orders/key/market-1')),
      (body) => body.state === 'DONE',
      60_000,
      250,
    );
    expect({ status: lookup.status, id: (lookup.answer as { id?: string }).id }).toEqual({
      status: 200,
      id: markets[0].id,
    });
  });
});
