import type { SandboxFaults } from '../apps/sandbox/src/shared/fault-board.js';
import { StallProxy } from './support/stall-proxy.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { type Stack, eventually, journalThrough, json } from './support/stack.js';

// A 503 JOURNAL_UNAVAILABLE says nothing was sent and invites a retry with the same Idempotency-Key.
// When the key's claim reached PostgreSQL but its answer did not (the database answered late, or the
// connection dropped after the statement ran), the key was left `in_flight` for an order never sent:
// the retry got 409, then, once stale, 202 PENDING for an order no search can find, for the key's
// whole lifetime (24 h). The call now frees its own claim once the database answers again.

const inserts = (stack: Stack) => stack.sandbox.state.counter('exchange.calls.insertOrder');
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The client's retries with one key while it is held (409), the journal away (503) or, when asked, the outcome pending (202), as their answers ask: the last answer and every status seen. */
async function retriedWithKey(stack: Stack, order: unknown, key: string, withinMs: number, again = [409, 503]) {
  const seen: number[] = [];
  const deadline = Date.now() + withinMs;
  let last: Response | undefined;
  while (Date.now() < deadline) {
    last = await post(stack, '/exchange/v1/trading/orders', order, 'all', { 'idempotency-key': key });
    seen.push(last.status);
    if (!again.includes(last.status)) break;
    await last.text();
    await sleep(500);
  }
  return { last: last!, seen: [...new Set(seen)] };
}

/** Sends the order with the key under the sandbox's `faults`, and cuts the journal once the exchange has it: the call's answer. */
async function sentThenCut(
  { stack, proxy }: { stack: Stack; proxy: StallProxy },
  order: unknown,
  key: string,
  faults: Partial<SandboxFaults>,
): Promise<Response> {
  const before = inserts(stack);
  stack.sandbox.state.setFaults(faults);
  try {
    const first = post(stack, '/exchange/v1/trading/orders', order, 'all', { 'idempotency-key': key });
    await eventually(
      async () => inserts(stack) - before,
      (n) => n === 1,
      10_000,
      10,
    );
    proxy.cut();
    return await first;
  } finally {
    stack.sandbox.state.setFaults({ exchangeDelayMs: {}, exchangeAnswerFaults: {} });
  }
}

/** A gateway whose journal's PostgreSQL is reached through a StallProxy the test cuts, stalls and restores (one per describe). */
function journalBehindProxy(
  settings: Parameters<typeof journalThrough>[1],
  exchangeTimeoutMs?: number,
): { stack: Stack; proxy: StallProxy } {
  const scene = {} as { stack: Stack; proxy: StallProxy };
  beforeAll(async () => {
    scene.proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    const journal = journalThrough(scene.proxy.port, settings);
    scene.stack = await startExchangeStack([], {
      gateway: (config) => ({
        ...config,
        journal,
        ...(exchangeTimeoutMs ? { exchange: { ...config.exchange, requestTimeoutMs: exchangeTimeoutMs } } : {}),
      }),
    });
  });
  afterAll(async () => {
    await scene.stack?.close();
    await scene.proxy?.close();
  });
  return scene;
}

describe('a key claimed by a call that sent nothing, while the journal is failing', () => {
  // Stale soon, so that a key left claimed shows as PENDING within the test.
  const scene = journalBehindProxy({ statementTimeoutMs: 1_000, inFlightStaleMs: 2_000 });

  it('is freed once the database is back: the retry with the same key places the order, once', async () => {
    const { stack, proxy } = scene;
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

    // The client retries as the 503 asks (409 and its Retry-After while the key is still held are fine; so
    // is 202 PENDING once the claim is stale, before the release lands: a busy machine in a loaded run).
    const { last, seen } = await retriedWithKey(stack, order, 'k-claimed-1', 20_000, [409, 503, 202]);
    expect({ last: last.status, seen }).toMatchObject({ last: 200 });
    expect(await json(last)).toMatchObject({ orderId: expect.any(String) });
    expect(last.headers.get('idempotent-replayed')).toBeNull();
    expect(inserts(stack) - before).toBe(1);

    // And the key now holds that order: the same request again is its replay, not a second order.
    const replay = await post(stack, '/exchange/v1/trading/orders', order, 'all', { 'idempotency-key': 'k-claimed-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(inserts(stack) - before).toBe(1);
  }, 60_000);
});

// A sent call's answer is stored for its key's replay after the send. When the database refused that
// write (a statement timeout on a busy machine, a dropped connection), the key stayed `in_flight` though
// the call had answered: its retry got 409 until the record went stale, the resolver then spent order
// searches on it, and every halt-and-cancel of its client waited for it the whole `inFlightStaleMs` (the
// one cause found for a CI run whose dead-man's switch made its cancels and did not report within 20 s).
// The write is now held and tried again.
describe('an answered call whose answer the journal refused', () => {
  // Stale late: the key can only hold its answer within the test if the gateway wrote it again.
  const scene = journalBehindProxy({ statementTimeoutMs: 1_000, inFlightStaleMs: 120_000 });

  it('is stored once the database is back: the retry with the same key is its replay, not 409', async () => {
    const { stack, proxy } = scene;
    const order = limit('SIDE_BUY', 1, 26);
    expect((await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 24))).status).toBe(200);
    const before = inserts(stack);
    // The order waits at the exchange; the database goes away for this gateway meanwhile.
    const placed = await sentThenCut(scene, order, 'k-answered-1', { exchangeDelayMs: { insertOrder: 1_500 } });
    expect(placed.status).toBe(200);
    const { orderId } = await json(placed);
    proxy.restore();

    // The client's retry with the key (409 while the answer is not yet stored): the order's replay.
    const { last, seen } = await retriedWithKey(stack, order, 'k-answered-1', 30_000);
    expect({ last: last.status, seen }).toMatchObject({ last: 200 });
    expect(last.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(last)).toMatchObject({ orderId });
    expect(inserts(stack) - before).toBe(1);
  }, 90_000);
});

// The same for a call whose answer was lost: its UNKNOWN mark, refused by the database, left the key
// `in_flight` until `inFlightStaleMs` (its retry 409, its client's halts waiting for it). The mark is now
// held and tried again, and the resolver is woken once it lands.
describe('a call whose answer was lost while the journal refused its UNKNOWN mark', () => {
  // Stale late: the key can only leave `in_flight` within the test if the gateway wrote the mark again.
  const scene = journalBehindProxy({ statementTimeoutMs: 1_000, inFlightStaleMs: 120_000 }, 2_500);

  it('is marked UNKNOWN once the database is back and resolved: the retry with the key gets the order, placed once', async () => {
    const { stack, proxy } = scene;
    const order = limit('SIDE_BUY', 1, 27);
    expect((await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 24))).status).toBe(200);
    const before = inserts(stack);
    // The order is placed; its answer comes after the gateway's timeout, while the database is away.
    const pending = await sentThenCut(scene, order, 'k-lost-1', {
      exchangeAnswerFaults: { insertOrder: { every: 1, drop: 0, hold: 1, holdMs: 6_000 } },
    });
    expect(pending.status).toBe(202);
    await pending.text();
    proxy.restore();

    // The client's retries with the key: 409 while in flight, then 202 PENDING until resolved, then the order.
    const { last, seen } = await retriedWithKey(stack, order, 'k-lost-1', 30_000, [409, 503, 202]);
    expect({ last: last.status, seen }).toMatchObject({ last: 200 });
    expect(await json(last)).toMatchObject({ orderId: expect.any(String) });
    expect(inserts(stack) - before).toBe(1);
  }, 90_000);
});

// A cancel passes whatever the journal does; a stalled database must not hold it for its timeouts.
// Before, a cancel waited for its claim (queued behind a new order's claim, each statement waiting
// up to statementTimeoutMs for a connection and again for its answer) and was sent only after the
// new order beside it had been refused.
describe('a cancel while the journal is stalled', () => {
  const scene = journalBehindProxy({ statementTimeoutMs: 5_000 });

  it('is sent and answered without waiting for the database, while a new order beside it waits and is refused 503', async () => {
    const { stack, proxy } = scene;
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
  const scene = journalBehindProxy({ statementTimeoutMs: 1_000 });

  it('reports the journal up, then degraded while cut (still 200), then up again', async () => {
    const { stack, proxy } = scene;
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
