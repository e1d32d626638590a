import { openJournalDatabase } from '@lib/journal';
import pg from 'pg';

import { StallProxy } from './support/stall-proxy.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { type Stack, api, eventually, journalThrough, json, testJournal } from './support/stack.js';

// Idempotency keys, the written-ahead journal and its hash chain, on the run's real PostgreSQL.

const inserts = (stack: Stack) => stack.sandbox.state.counter('exchange.calls.insertOrder');
const superuser = () => new pg.Client({ connectionString: process.env.TEST_PG_URL });

describe('order journal and idempotency keys', () => {
  let stack: Stack;
  let schema: string;
  beforeAll(async () => {
    schema = `j_journal_${process.pid}`;
    stack = await startExchangeStack([{ id: 'trader', team: 'trading', scopes: ['read:orders', 'write:orders'] }], {
      gateway: (config) => ({ ...config, journal: testJournal(schema) }),
    });
  });
  afterAll(() => stack.close());

  it('replays a finished insert for the same Idempotency-Key, sends it once, and refuses the key with another body (422)', async () => {
    const before = inserts(stack);
    const first = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 20), 'all', {
      'idempotency-key': 'k-replay-1',
    });
    expect(first.status).toBe(200);
    const { orderId } = await json(first);
    const again = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 20), 'all', {
      'idempotency-key': 'k-replay-1',
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual({ orderId });
    expect(inserts(stack) - before).toBe(1);

    const other = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 2, 20), 'all', {
      'idempotency-key': 'k-replay-1',
    });
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(other)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', idempotencyKey: 'k-replay-1' });
    expect(inserts(stack) - before).toBe(1);
  });

  it('replays a finished cancel for the same Idempotency-Key (its order no longer working), and refuses the key with another body (422)', async () => {
    // A probe: the retry of a cancel whose answer was lost was refused 404 "No working order" (its
    // ownership was checked before the key was looked up), and the key with another body too.
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 20));
    expect(placed.status).toBe(200);
    const { orderId } = await json(placed);
    const cancels = () => stack.sandbox.state.counter('exchange.calls.cancelOrder');
    const before = cancels();
    const cancel = () =>
      post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'all', { 'idempotency-key': 'k-cancel-1' });
    const first = await cancel();
    expect(first.status).toBe(200);
    const answer = await json(first);
    const again = await cancel();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(answer);
    expect(cancels() - before).toBe(1);

    const other = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId: `${orderId}9` }, 'all', {
      'idempotency-key': 'k-cancel-1',
    });
    expect(other.status).toBe(422);
    expect(await json(other)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    // A new key for the finished order: not the caller's working order, refused before the exchange.
    const fresh = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'all', {
      'idempotency-key': 'k-cancel-2',
    });
    expect(fresh.status).toBe(404);
    expect(cancels() - before).toBe(1);
  });

  it('treats a resent clordId as the key: the exchange sees it once, the client gets the first answer', async () => {
    const before = inserts(stack);
    const body = limit('SIDE_BUY', 1, 21, { clordId: 'resend-1' });
    const first = await post(stack, '/exchange/v1/trading/orders', body);
    expect(first.status).toBe(200);
    const second = await post(stack, '/exchange/v1/trading/orders', body);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(second)).toEqual(await json(first));
    expect(inserts(stack) - before).toBe(1);
  });

  it('answers 409 with Retry-After while the first call with the key is in flight', async () => {
    const { state } = stack.sandbox;
    state.setFaults({ exchangeDelayMs: { insertOrder: 1_500 } });
    try {
      const before = inserts(stack);
      const first = post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 22), 'all', {
        'idempotency-key': 'k-flight-1',
      });
      // The first call has reached the exchange (which holds it): its key is in flight.
      await eventually(
        async () => inserts(stack),
        (n) => n > before,
        5_000,
      );
      const second = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 22), 'all', {
        'idempotency-key': 'k-flight-1',
      });
      expect(second.status).toBe(409);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(await json(second)).toMatchObject({ code: 'IDEMPOTENCY_IN_FLIGHT' });
      expect((await first).status).toBe(200);
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
  });

  it('journals each order event, reads its timeline by clordId and order id, and exports the range as JSON lines and CSV', async () => {
    const from = new Date(Date.now() - 1_000).toISOString();
    const res = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 23, { clordId: 'timeline-1' }),
      'all',
      { 'idempotency-key': 'k-timeline-1' },
    );
    const { orderId } = await json(res);
    // The gateway's own records of the call, in order. The order stream is held while orders are entered
    // (the reject breaker and the resolver read it), so its events are journaled too, as `stream`
    // records, whenever they arrive: they interleave at the stream's pace, so they are set apart here.
    const own = (body: { records: { kind: string }[] }) => body.records.filter((r) => r.kind !== 'stream');
    const byClordAll = await json(await api(stack)('/orders/timeline?clordId=timeline-1'));
    const byClord = { records: own(byClordAll) as Record<string, unknown>[] };
    expect(byClord.records.map((r) => r.kind)).toEqual(['received', 'sent', 'answer']);
    expect(
      byClordAll.records.every((r: { kind: string }) => ['received', 'sent', 'answer', 'stream'].includes(r.kind)),
    ).toBe(true);
    expect(byClord.records[0]).toMatchObject({
      clordId: 'timeline-1',
      clientId: 'all',
      team: 'platform',
      data: { idempotencyKey: 'k-timeline-1', operation: 'exchange.insert', body: { clordId: 'timeline-1' } },
    });
    expect(byClord.records[1]).toMatchObject({
      clordId: 'timeline-1',
      data: { path: '/v1/trading/orders', attempt: 1 },
    });
    expect(byClord.records[2]).toMatchObject({ orderId, data: { status: 200 } });
    const byOrder = await json(await api(stack)(`/orders/timeline?orderId=${orderId}`));
    expect(own(byOrder)).toEqual(byClord.records);
    // No secret reaches the journal: the client's API key is in no record.
    expect(JSON.stringify(byClord)).not.toContain(stack.keys.all);

    const cancel = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId });
    expect(cancel.status).toBe(200);
    const afterCancel = await json(await api(stack)(`/orders/timeline?orderId=${orderId}`));
    expect(own(afterCancel).map((r) => r.kind)).toEqual(['received', 'sent', 'answer', 'received', 'sent', 'answer']);

    const to = new Date(Date.now() + 1_000).toISOString();
    const lines = (await (await api(stack)(`/admin/journal/export?from=${from}&to=${to}`)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(
      lines.filter((r) => (r.clordId === 'timeline-1' || r.orderId === orderId) && r.kind !== 'stream').length,
    ).toBe(6);
    const csv = await (await api(stack)(`/admin/journal/export?from=${from}&to=${to}&format=csv`)).text();
    expect(csv.split('\n')[0]).toBe('seq,at,kind,clordId,orderId,clientId,team,data,hash');
    expect(csv).toContain('timeline-1');
  });

  it("shows an order's timeline and outcome to the team that sent it and to admin, to no other team", async () => {
    const res = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 28, { clordId: 'owned-1' }),
      'trader',
    );
    expect(res.status).toBe(200);
    const { orderId } = await json(res);
    for (const path of [
      '/orders/timeline?clordId=owned-1',
      `/orders/timeline?orderId=${orderId}`,
      '/orders/clord/owned-1',
    ]) {
      expect((await api(stack, 'trader')(path)).status).toBe(200);
      expect((await api(stack)(path)).status).toBe(200);
    }
    const platform = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 28, { clordId: 'not-yours-1' }),
    );
    const theirs = (await json(platform)).orderId;
    for (const path of [
      '/orders/timeline?clordId=not-yours-1',
      `/orders/timeline?orderId=${theirs}`,
      '/orders/clord/not-yours-1',
    ]) {
      const refused = await api(stack, 'trader')(path);
      expect(refused.status).toBe(404);
      expect(await json(refused)).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(await json(await api(stack, 'trader')('/orders/clord/owned-1'))).toMatchObject({
      clordId: 'owned-1',
      state: 'DONE',
      status: 200,
      answer: { orderId },
    });
  });

  // The lookup a 202 insert points to read the team's latest call naming the clordId, of any operation: after
  // a cancel by that clordId it answered the cancel's outcome (a probe: a second cancel's 409 shown as the
  // insert's), though the insert's key still held its order id.
  it("answers the insert's outcome by clordId after cancels that named the order by it", async () => {
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 27, { clordId: 'looked-up-1', timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL' }),
      'trader',
      { 'idempotency-key': 'looked-up-ins' },
    );
    expect(placed.status).toBe(200);
    const { orderId } = await json(placed);
    for (const key of ['looked-up-cxl', 'looked-up-cxl-2']) {
      const cancel = await post(stack, '/exchange/v1/trading/orders/cancel', { clordId: 'looked-up-1' }, 'trader', {
        'idempotency-key': key,
      });
      await cancel.text();
    }
    expect(await json(await api(stack, 'trader')('/orders/clord/looked-up-1'))).toMatchObject({
      state: 'DONE',
      status: 200,
      answer: { orderId },
    });
  });

  it('keys retail order entry too: a create is replayed, not sent twice, and the key refuses another body', async () => {
    const slug = 'aec-nfl-gb-chi-2026-11-22';
    const order = {
      marketSlug: slug,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: { value: '0.20', currency: 'USD' },
      quantity: 1,
    };
    const created = () => stack.sandbox.state.counter('retail.route.createOrder');
    const before = created();
    const first = await post(stack, '/retail/v1/orders', order, 'all', { 'idempotency-key': 'k-retail-1' });
    expect(first.status).toBe(200);
    const again = await post(stack, '/retail/v1/orders', order, 'all', { 'idempotency-key': 'k-retail-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(await json(first));
    expect(created() - before).toBe(1);
    const other = await post(stack, '/retail/v1/orders', { ...order, quantity: 2 }, 'all', {
      'idempotency-key': 'k-retail-1',
    });
    expect(other.status).toBe(422);
    expect(created() - before).toBe(1);
  });

  it("keeps the clordId index's entries out of GIN's pending list, which every claim would read through", async () => {
    // Migration 6. With fast update (PostgreSQL's default) each claim's record waited in the pending list,
    // which each claim's search for an earlier holder of its clordIds read to the end: 1.3 ms a claim, 77 %
    // of PostgreSQL's time in `npm run bench orders`, under the clordIds' locks.
    const db = superuser();
    await db.connect();
    try {
      const { rows } = await db.query<{ reloptions: string[] | null }>(
        `SELECT c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relname = 'idempotency_participant_clord_ids'`,
        [schema],
      );
      expect(rows).toEqual([{ reloptions: ['fastupdate=off'] }]);
    } finally {
      await db.end();
    }
  });

  it('verifies the hash chain, and detects a record altered in the database', async () => {
    const db = superuser();
    await db.connect();
    try {
      const reader = await openJournalDatabase({ ...stack.config.journal, url: process.env.TEST_PG_URL });
      const { journal } = reader;
      const intact = await journal.verify();
      expect(intact.checked).toBeGreaterThan(4);
      expect(intact.breaks).toEqual([]);
      // The application role may only insert and select: it cannot alter a record.
      const app = new pg.Client({ connectionString: process.env.TEST_PG_APP_URL });
      await app.connect();
      await expect(app.query(`UPDATE ${schema}.order_events SET kind = 'x' WHERE seq = 2`)).rejects.toThrow(
        /permission denied/,
      );
      await expect(app.query(`DELETE FROM ${schema}.order_events WHERE seq = 2`)).rejects.toThrow(/permission denied/);
      await app.end();
      // Even the owner is refused by the trigger; an intruder with superuser rights switches it off and edits a record.
      await expect(db.query(`UPDATE ${schema}.order_events SET kind = 'x' WHERE seq = 2`)).rejects.toThrow(
        /append-only/,
      );
      await db.query(`ALTER TABLE ${schema}.order_events DISABLE TRIGGER order_events_append_only`);
      await db.query(
        `UPDATE ${schema}.order_events SET record = replace(record, '"orderQty":"1"', '"orderQty":"9"') WHERE seq = 1`,
      );
      await db.query(`DELETE FROM ${schema}.order_events WHERE seq = 3`);
      const broken = await journal.verify();
      expect([...new Set(broken.breaks.map((b) => b.seq))]).toEqual([1, 4]);
      expect(broken.breaks[0]!.reason).toContain('altered');
      expect(broken.breaks.find((b) => b.seq === 4)!.reason).toContain('missing');
      await reader.close();
    } finally {
      await db.end();
    }
  });
});

describe('journal unreachable', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    const journal = journalThrough(proxy.port, { statementTimeoutMs: 500 });
    stack = await startExchangeStack([], { gateway: (config) => ({ ...config, journal }) });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });

  it('refuses new orders 503 JOURNAL_UNAVAILABLE without sending them, and lets cancels pass', async () => {
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 24));
    expect(placed.status).toBe(200);
    const { orderId } = await json(placed);
    proxy.cut();
    const before = stack.sandbox.state.counter('exchange.calls.insertOrder');
    const refused = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 24), 'all', {
      'idempotency-key': 'k-down-1',
    });
    expect(refused.status).toBe(503);
    expect(await json(refused)).toMatchObject({ code: 'JOURNAL_UNAVAILABLE', processed: false });
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(stack.sandbox.state.counter('exchange.calls.insertOrder')).toBe(before);
    const cancel = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'all', {
      'idempotency-key': 'k-down-cancel',
    });
    expect(cancel.status).toBe(200);
    expect(stack.sandbox.state.counter('exchange.calls.cancelOrder')).toBe(1);
  });
});

describe('journal down when the gateway starts', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    proxy.cut();
    const through = (url: string) => url.replace(`:${process.env.TEST_PG_PORT}/`, `:${proxy.port}/`);
    const base = testJournal();
    const journal = {
      ...base,
      url: through(base!.url!),
      migrationUrl: through(base!.migrationUrl!),
      statementTimeoutMs: 500,
    };
    stack = await startExchangeStack([], { gateway: (config) => ({ ...config, journal }) });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });

  it('starts anyway, refuses orders 503 while the database is away, and migrates and takes orders once it is back', async () => {
    const refused = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 27));
    expect(refused.status).toBe(503);
    expect(await json(refused)).toMatchObject({ code: 'JOURNAL_UNAVAILABLE' });
    expect(stack.sandbox.state.counter('exchange.calls.insertOrder')).toBe(0);
    proxy.restore();
    // A failed migration is retried on use, at most every 5 s.
    const placed = await eventually(
      () =>
        post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 27), 'all', { 'idempotency-key': 'k-back-1' }),
      (res) => res.status === 200,
      15_000,
      500,
    );
    expect(await json(placed)).toMatchObject({ orderId: expect.any(String) });
    expect(stack.sandbox.state.counter('exchange.calls.insertOrder')).toBe(1);
  }, 30_000);
});
