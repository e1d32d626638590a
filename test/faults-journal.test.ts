import { StallProxy } from './support/stall-proxy.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { type Stack, journalThrough, json } from './support/stack.js';

// A 503 JOURNAL_UNAVAILABLE says nothing was sent and invites a retry with the same Idempotency-Key.
// When the key's claim reached PostgreSQL but its answer did not (the database answered late, or the
// connection dropped after the statement ran), the key was left `in_flight` for an order never sent:
// the retry got 409, then, once stale, 202 PENDING for an order no search can find, for the key's
// whole lifetime (24 h). The call now frees its own claim once the database answers again.

const inserts = (stack: Stack) => stack.sandbox.state.counter('exchange.calls.insertOrder');
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('a key claimed by a call that sent nothing, while the journal is failing', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    // Stale soon, so that a key left claimed shows as PENDING within the test.
    const journal = journalThrough(proxy.port, { statementTimeoutMs: 1_000, inFlightStaleMs: 2_000 });
    stack = await startExchangeStack([], { gateway: (config) => ({ ...config, journal }) });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });

  it('is freed once the database is back: the retry with the same key places the order, once', async () => {
    const order = limit('SIDE_BUY', 1, 25);
    const warm = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 24));
    expect(warm.status).toBe(200);
    const before = inserts(stack);

    // The claim and the intent's record reach the database and run; their answers never come back.
    proxy.holdReplies();
    const first = post(stack, '/exchange/v1/trading/orders', order, 'all', { 'idempotency-key': 'k-claimed-1' });
    await sleep(300);
    proxy.cut(); // then the database is gone for this gateway: the release cannot be written either
    const refused = await first;
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(refused)).toMatchObject({ code: 'JOURNAL_UNAVAILABLE', processed: false });
    expect(inserts(stack)).toBe(before);
    await sleep(1_500);
    proxy.restore();

    // The client retries as the 503 asks (409 and its Retry-After while the key is still held are fine).
    const seen: number[] = [];
    const deadline = Date.now() + 20_000;
    let last: Response | undefined;
    while (Date.now() < deadline) {
      last = await post(stack, '/exchange/v1/trading/orders', order, 'all', { 'idempotency-key': 'k-claimed-1' });
      seen.push(last.status);
      if (last.status === 200) break;
      await last.text();
      await sleep(500);
    }
    expect({ last: last?.status, seen: [...new Set(seen)] }).toMatchObject({ last: 200 });
    expect(await json(last!)).toMatchObject({ orderId: expect.any(String) });
    expect(last!.headers.get('idempotent-replayed')).toBeNull();
    expect(inserts(stack) - before).toBe(1);

    // And the key now holds that order: the same request again is its replay, not a second order.
    const replay = await post(stack, '/exchange/v1/trading/orders', order, 'all', { 'idempotency-key': 'k-claimed-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(inserts(stack) - before).toBe(1);
  }, 60_000);
});

// A cancel passes whatever the journal does; a stalled database must not hold it for its timeouts.
// Before, a cancel waited for its claim (queued behind a new order's claim, each statement waiting
// up to statementTimeoutMs for a connection and again for its answer) and was sent only after the
// new order beside it had been refused.
describe('a cancel while the journal is stalled', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    stack = await startExchangeStack([], {
      gateway: (config) => ({ ...config, journal: journalThrough(proxy.port, { statementTimeoutMs: 5_000 }) }),
    });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });

  it('is sent and answered without waiting for the database, while a new order beside it waits and is refused 503', async () => {
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 24));
    expect(placed.status).toBe(200);
    const { orderId } = await json(placed);
    const cancels = () => stack.sandbox.state.counter('exchange.calls.cancelOrder');
    const insertsBefore = inserts(stack);

    proxy.stall();
    const settled: string[] = [];
    const order = post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 25), 'all', {
      'idempotency-key': 'k-stalled-order',
    }).then((res) => (settled.push('order'), res));
    await sleep(100);
    const cancel = post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'all', {
      'idempotency-key': 'k-stalled-cancel',
    }).then((res) => (settled.push('cancel'), res));
    const [cancelled, refused] = await Promise.all([cancel, order]);
    proxy.restore();

    expect(cancelled.status).toBe(200);
    expect(cancels()).toBe(1);
    expect(refused.status).toBe(503);
    expect(await json(refused)).toMatchObject({ code: 'JOURNAL_UNAVAILABLE', processed: false });
    expect(inserts(stack)).toBe(insertsBefore);
    // The cancel did not wait for the journal: it was answered while the new order still waited for it.
    expect(settled).toEqual(['cancel', 'order']);
  }, 60_000);
});

// Readiness says when the journal's database does not answer (new orders are refused 503 meanwhile),
// as degraded: the instance stays in rotation for cancels and reads.
describe('readiness while the journal is cut', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    const journal = journalThrough(proxy.port, { statementTimeoutMs: 1_000 });
    stack = await startExchangeStack([], { gateway: (config) => ({ ...config, journal }) });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });

  it('reports the journal up, then degraded while cut (still 200), then up again', async () => {
    const ready = async () => {
      const res = await fetch(`${stack.url}/health/ready`);
      return { status: res.status, journal: (await json(res)).details?.journal?.status as string | undefined };
    };
    // Ready once every check is (the exchange token is fetched at start).
    const up = Date.now() + 15_000;
    let first = await ready();
    while (first.status !== 200 && Date.now() < up) {
      await sleep(200);
      first = await ready();
    }
    expect(first).toEqual({ status: 200, journal: 'up' });
    proxy.cut();
    try {
      expect(await ready()).toEqual({ status: 200, journal: 'degraded' });
    } finally {
      proxy.restore();
    }
    const back = Date.now() + 15_000;
    let last = await ready();
    while (last.journal !== 'up' && Date.now() < back) {
      await sleep(200);
      last = await ready();
    }
    expect(last).toEqual({ status: 200, journal: 'up' });
  }, 60_000);
});
