import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { limit, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_TEAM_TRADER, PARTICIPANT, type Stack, eventually, json, testJournal } from './support/stack.js';

// Which orders a pending insert may take as its own is judged from the journal: an order given to another
// call (an answer naming it) written before this call's claim is not this call's (the exchange takes a
// closed order's clordId again). "Before" compared the answer record's stamp, the writing instance's wall
// clock, with the claim's creation time, the database's clock: a gateway host whose clock ran ahead of the
// database's took the client's earlier, cancelled order under the reused clordId for the new call's, and a
// call whose request never reached the exchange was answered 200 with that old order's id. Before and
// after are now the journal's own order (the call's `received` record against the answer's).

describe('an UNKNOWN insert on a gateway whose wall clock runs ahead of the database', () => {
  let stack: Stack;
  let skewed: GatewayProcess | undefined;

  beforeAll(async () => {
    stack = await startExchangeStack([OTHER_TEAM_TRADER]);
  }, 60_000);
  afterAll(async () => {
    await skewed?.stop();
    await stack?.close();
  });

  it('is never settled with the earlier order of its reused clordId', async () => {
    const journal = { ...testJournal(), resolveSearchesPerMinute: 12, notPlacedAfterMs: 10_000 };
    skewed = await spawnGateway({ ...stack.configInput, journal }, { wallClock: { offsetMs: 120_000 } });
    const call = (path: string, body: unknown, key?: string, client = 'all') =>
      fetch(`${skewed!.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${stack.keys[client]}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(key ? { 'idempotency-key': key } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const body = limit('SIDE_BUY', 1, 8, { clordId: 'wall-reuse-1' });
    // The earlier order is another team's on the same participant (the gateway never sends one of a team's clordIds twice).
    const first = await call('/exchange/v1/trading/orders', body, 'wall-first', OTHER_TEAM_TRADER.id);
    expect(first.status).toBe(200);
    const { orderId: oldOrder } = (await json(first)) as { orderId: string };
    expect(
      (await call('/exchange/v1/trading/orders/cancel', { orderId: oldOrder }, undefined, OTHER_TEAM_TRADER.id)).status,
    ).toBe(200);

    // The same clordId under another key; the request is lost before the exchange runs it.
    const { state } = stack.sandbox;
    state.setFaults({ exchangeLostRequests: { insertOrder: 1 } });
    const lost = await call('/exchange/v1/trading/orders', body, 'wall-second');
    expect(lost.status).toBe(202);
    expect(state.counter('exchange.requestsLost.insertOrder')).toBe(1);

    const lookup = await eventually(
      async () => json(await call('/orders/key/wall-second', undefined)),
      (found) => found.state === 'DONE',
      60_000,
      250,
    );
    expect(lookup).toMatchObject({ status: 409, answer: { code: 'ORDER_NOT_PLACED' } });
    const orders = state.engine
      .searchOrders({ accounts: [PARTICIPANT] })
      .order.filter((order: { clordId: string }) => order.clordId === 'wall-reuse-1');
    expect(orders).toHaveLength(1);
  }, 120_000);
});
