import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { type Json, type Stack, api, json, testJournal } from './support/stack.js';

/**
 * An order call is sent in time or never. Once a call's record is `journal.inFlightStaleMs` old, any
 * instance takes it for a stopped instance's: it marks it UNKNOWN and, when no search shows the order
 * `notPlacedAfterMs` later, answers its key 409 ORDER_NOT_PLACED, and the client, told so, places the
 * order again. A call still waiting in its own process (a budget wait here; a paused or stalled process
 * alike) was then sent anyway, and the order the key said was not placed was placed: the client's next
 * order made two. Real sandbox and PostgreSQL; the wait is the budget's (one insert per 30 s).
 */
describe('an order call never leaves after its record may be taken for a stopped instance', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([], {
      gateway: (config) => ({
        ...config,
        journal: { ...testJournal(), inFlightStaleMs: 3_000, notPlacedAfterMs: 10_000, resolveSearchesPerMinute: 12 },
        limits: {
          ...config.limits,
          maxPreferWaitSeconds: 60,
          buckets: { ...config.limits?.buckets, 'exchange.orders.insert': { limit: 1, windowSeconds: 30 } },
        },
      }),
    });
  });
  afterAll(() => stack.close());

  it('refuses a send later than its record allows (503, processed: false): what its key answers stays true', async () => {
    const engine = () => stack.sandbox.state.engine;
    const insert = (clordId: string, key: string) =>
      post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 11, { clordId }), 'all', {
        'idempotency-key': key,
        prefer: 'wait=50',
      });
    expect((await insert('in-time-1', 'in-time-k1')).status).toBe(200); // the budget's one token
    const started = Date.now();
    const late = insert('in-time-2', 'in-time-k2'); // waits ~30 s for the next
    // What the key answers meanwhile (another instance's client would read the same).
    const answers: Json[] = [];
    let done = false;
    void late.finally(() => (done = true));
    while (!done) {
      const res = await api(stack)('/orders/key/in-time-k2');
      if (res.status === 200) answers.push(await json(res));
      await new Promise((r) => setTimeout(r, 250));
    }
    const answer = await late;
    const body = await json(answer);
    const notPlaced = answers.filter((a) => a.state === 'DONE' && a.status === 409);
    const placed = engine().searchOrders({ clordId: 'in-time-2' }).order;
    console.log(
      `late order: answered ${answer.status} ${body.code ?? ''} after ${Date.now() - started} ms; its key read ` +
        `${answers.length} times, ${notPlaced.length} of them 409 ORDER_NOT_PLACED; at the exchange: ${placed.length}`,
    );
    // The promise: a key that said "not placed" is never contradicted by the exchange.
    if (notPlaced.length > 0) expect(placed).toHaveLength(0);
    // The call waited past its record's staleness (3 s, less the 1 s margin): it was not sent.
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', processed: false });
    expect(placed).toHaveLength(0);
    expect(engine().searchOrders({ clordId: 'in-time-1' }).order).toHaveLength(1);
  }, 90_000);
});
