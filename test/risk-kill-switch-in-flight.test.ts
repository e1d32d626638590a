import pg from 'pg';

import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, type Stack, eventually, json, pastGatewayRefusals, testJournal } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/**
 * A halt-and-cancel or a dead-man's switch takes the orders whose inserts were still in flight when it
 * ran. Found by a probe: with the exchange slow to answer inserts, a halt-and-cancel read the team's
 * open orders, found none, answered `targeted 0, remainingOpen 0`, and the 8 inserts then landed and
 * rested (4 of 4 on the same instance); a dead-man's switch cancelled the one order resting and left the
 * 4 in flight. Now a run waits out the scope's calls in flight (by the journal every instance writes),
 * then reads and cancels once more. Two instances, one sandbox, one journal, real Redis.
 */
const W = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [{ id: 'hc', team: 'desk', scopes: W, participants: [OTHER_PARTICIPANT] }];
const journal = testJournal();
const shared = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  journal,
  teams: [...(config.teams ?? []), { id: 'desk' }],
});
/** How long the exchange holds each insert before placing it. */
const INSERT_DELAY_MS = 1_200;

interface Report {
  cancelled: { orderId: string }[];
  unresolved: unknown[];
  remainingOpen: number;
  awaitedInFlight: number;
}

describe('the kill switch takes orders whose inserts were in flight', () => {
  let a: Stack;
  let b: Stack;
  const prefix = `kif${process.pid}:`;
  const resting = (tag: string) =>
    a.sandbox.state.engine.openOrders(OTHER_PARTICIPANT).filter((order) => order.clordId?.startsWith(tag));
  const slowInserts = (on: boolean) =>
    a.sandbox.state.setFaults({ exchangeDelayMs: on ? { insertOrder: INSERT_DELAY_MS } : {} });
  /** Inserts sent through `stack`; resolves with their statuses once all are answered. */
  const insert = (stack: Stack, tag: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 2 + i, { clordId: `${tag}-${i}` }), 'hc').then(
          (res) => res.status,
        ),
      ),
    );
  const setState = (stack: Stack, state: string) =>
    post(stack, '/admin/risk/states', { scope: 'team:desk', state, reason: 'in-flight test' });

  beforeAll(async () => {
    a = await startExchangeStack(CLIENTS, { redis: true, redisKeyPrefix: prefix, gateway: shared });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      redisKeyPrefix: prefix,
      reuseSandbox: a.sandbox,
      gateway: shared,
    });
    // Warm both instances' tokens and streams: one order through each, cancelled.
    for (const stack of [a, b]) {
      const warm = await pastGatewayRefusals(() =>
        post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 2), 'hc'),
      );
      expect(warm.status).toBe(200);
      const { orderId } = (await json(warm)) as { orderId: string };
      const cancelled = await pastGatewayRefusals(() =>
        post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'hc'),
      );
      expect(cancelled.status).toBe(200);
    }
  });
  afterEach(() => slowInserts(false));
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it.each([
    ['another instance', () => b],
    ['the same instance', () => a],
  ])(
    'halt-and-cancel on one instance, inserts in flight on %s: none left resting once the run answers, and the report names them',
    async (_, sender) => {
      const tag = `hif-${sender() === a ? 'a' : 'b'}`;
      slowInserts(true);
      const reached = () => a.sandbox.state.counter('exchange.calls.insertOrder');
      const before = reached();
      const inserts = insert(sender(), tag, 6);
      // Halted once an insert is at the exchange, not placed yet (the sandbox counts it before its delay).
      await eventually(
        async () => reached() - before,
        (n) => n > 0,
        10_000,
        5,
      );
      const halted = await setState(a, 'halt-and-cancel');
      expect(halted.status).toBe(200);
      const { report } = (await json(halted)) as { report: Report };
      // On a busy machine a budget decision read late is refused 429 unsent, and an insert that reaches the
      // gateway after the halt is refused 403: neither is in flight.
      const statuses = await inserts;
      expect(statuses.filter((status) => status !== 200 && status !== 429 && status !== 403)).toEqual([]);
      const placed = statuses.filter((status) => status === 200).length;
      expect(placed).toBeGreaterThan(0);
      // The promise: once the run has answered, nothing of the team rests at the exchange.
      expect(resting(tag).map((order) => order.clordId)).toEqual([]);
      expect(report).toMatchObject({ remainingOpen: 0, unresolved: [] });
      expect(report.awaitedInFlight).toBeGreaterThan(0);
      expect(report.cancelled.length).toBeGreaterThanOrEqual(placed);
      expect((await setState(a, 'active')).status).toBe(200);
    },
    30_000,
  );

  it("a client's halt-and-cancel latched by an admin waits out that client's calls claimed just after it began (an instance that had not heard of the halt yet)", async () => {
    // The other instance is played by its journal record: an in-flight claim of hc's insert, stamped 400 ms
    // after it is written (the halt is posted right after), as an instance the halt had not reached yet writes
    // one once the run has begun. The run's margin (500 ms after it began) covers it however late a busy
    // machine lets the run begin; without the margin (before: a client's scope had none) it is not counted
    // unless the run begins 400 ms late. Before, such a call's order could land after the run and rest.
    const db = new pg.Client({ connectionString: process.env.TEST_PG_URL });
    await db.connect();
    const key = `late-claim-${process.pid}`;
    const claim = (sql: string) => db.query(sql.replaceAll('$schema', journal!.schema!), [key]);
    try {
      await claim(
        `INSERT INTO $schema.idempotency (client_id, key, fingerprint, state, operation, clord_ids, participant, team, created_at, updated_at, expires_at)
         VALUES ('hc', $1, 'late', 'in_flight', 'exchange.insert', '[]', '${OTHER_PARTICIPANT}', 'desk',
                 now() + interval '400 milliseconds', now(), now() + interval '1 hour')`,
      );
      const halting = post(a, '/admin/risk/states', {
        scope: 'client:hc',
        state: 'halt-and-cancel',
        reason: 'late claim',
      });
      // Answered by the other instance a little later: the run, which counted it, waits for that, then reads
      // and cancels once more.
      await new Promise((resolve) => setTimeout(resolve, 600));
      await claim(`DELETE FROM $schema.idempotency WHERE client_id = 'hc' AND key = $1`);
      const halted = await halting;
      expect(halted.status).toBe(200);
      const { report } = (await json(halted)) as { report: Report };
      expect(report.awaitedInFlight).toBeGreaterThan(0);
      expect(report).toMatchObject({ remainingOpen: 0, unresolved: [] });
    } finally {
      await claim(`DELETE FROM $schema.idempotency WHERE client_id = 'hc' AND key = $1`).catch(() => undefined);
      await db.end();
      expect(
        (await post(a, '/admin/risk/states', { scope: 'client:hc', state: 'active', reason: 'late claim' })).status,
      ).toBe(200);
    }
  }, 30_000);

  it("a dead-man's switch that fires while its client's inserts are in flight takes their orders too", async () => {
    slowInserts(true);
    const reached = () => a.sandbox.state.counter('exchange.calls.insertOrder');
    const before = reached();
    const inserts = insert(b, 'dms-if', 4);
    // Armed once the inserts are at the exchange (the sandbox counts them before its delay): the switch
    // lapses while they are held there, and they land after it fired. Armed before they were sent, a busy
    // machine could let it lapse before they left.
    await eventually(
      async () => reached() - before,
      (n) => n > 0,
      10_000,
      5,
    );
    const armed = await post(a, '/risk/v1/dead-man-switch', { seconds: 1 }, 'hc');
    expect(armed.status).toBe(200);
    const statuses = await inserts;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses).toContain(200);
    slowInserts(false);
    const left = await eventually(
      async () => resting('dms-if').map((order) => order.clordId),
      (open) => open.length === 0,
      10_000,
    );
    expect(left).toEqual([]);
  }, 30_000);
});
