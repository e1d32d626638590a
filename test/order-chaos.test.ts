import { SYMBOL, limit, startExchangeStack } from './support/exchange-stack.js';
import { type Stack, eventually, startStack } from './support/stack.js';

// The chaos test: ORDERS inserts through two gateway instances sharing one PostgreSQL, while
// the sandbox loses the answer of 10 % of inserts after running them (connection dropped) and answers
// 5 % past the gateway's timeout. Every client retries every failure with the same Idempotency-Key
// until it holds a terminal answer. The 1,000 by default (about 45 s on a loaded 2-core
// machine); `CHAOS_ORDERS=200` for a quicker run.
//
// @runs-alone: its 1,000 clients are the load it judges, with a 1 s upstream timeout. Beside another
// file's stacks on two cores (ci49), two inserts never reached the sandbox's handler (998 orders at the
// exchange, 998 insert calls counted) and their keys answered 202 to the end: the likeliest reading is
// that the starved sandbox, in this jest process, read them only after the gateway had timed them out
// and closed the connection (UNKNOWN with no order to find stays PENDING: no timer turns it terminal).

const ORDERS = Number(process.env.CHAOS_ORDERS ?? 1_000);
const CLIENTS = Math.max(20, Math.ceil(ORDERS / 20));
const TIMEOUT_MS = 1_000;
const DEADLINE_MS = 120_000;
/** How long a client still pending after DEADLINE_MS may go on retrying once no answer is lost. */
const LATE_MS = 30_000;

interface Outcome {
  orderId?: string;
  attempts: number;
  statuses: Record<string, number>;
}

/** One client: the same request with the same key, alternating instances, until a terminal answer (any but 202, 409, 429, 5xx, a lost connection). */
async function placeOnce(
  urls: string[],
  key: string,
  apiKey: string,
  index: number,
  deadline: number,
): Promise<Outcome> {
  const outcome: Outcome = { attempts: 0, statuses: {} };
  const body = JSON.stringify(limit('SIDE_BUY', 1, 10 + (index % 10)));
  for (;;) {
    if (Date.now() > deadline) return outcome;
    const url = urls[(index + outcome.attempts) % urls.length]!;
    outcome.attempts++;
    let status: number | string;
    try {
      const res = await fetch(`${url}/exchange/v1/trading/orders`, {
        method: 'POST',
        body,
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'x-participant-id': 'firms/TESTFIRM/users/alice',
          'idempotency-key': key,
        },
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      const answer = (await res.json()) as { orderId?: string };
      if (status === 200)
        return {
          ...outcome,
          orderId: answer.orderId,
          statuses: { ...outcome.statuses, 200: (outcome.statuses[200] ?? 0) + 1 },
        };
      if (status < 500 && ![202, 409, 429].includes(status))
        return { ...outcome, statuses: { ...outcome.statuses, [status]: 1 } };
    } catch (error) {
      status = (error as Error).name;
    }
    outcome.statuses[status] = (outcome.statuses[status] ?? 0) + 1;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe('chaos: every order once through two instances while answers are lost', () => {
  let a: Stack;
  let b: Stack;
  beforeAll(async () => {
    a = await startExchangeStack([], {
      gateway: (config) => ({
        ...config,
        exchange: { requestTimeoutMs: TIMEOUT_MS },
        // The resolver may spend the exchange's whole search rate here (the sandbox's search limit is lifted).
        ...(config.journal ? { journal: { ...config.journal, resolveSearchesPerMinute: 12 } } : {}),
      }),
    });
    // The second instance: the same config (clients, journal schema, timeouts) on the same sandbox.
    b = await startStack({ reuseSandbox: a.sandbox, gateway: () => a.configInput });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it(
    `places exactly ${ORDERS} orders for ${ORDERS} clients retrying through lost and late answers, each with its timeline`,
    async () => {
      const { state } = a.sandbox;
      const startedAt = state.clock.now();
      state.setFaults({
        exchangeAnswerFaults: { insertOrder: { every: 20, drop: 2, hold: 1, holdMs: TIMEOUT_MS + 1_500 } },
      });
      const deadline = Date.now() + DEADLINE_MS;
      const outcomes: Outcome[] = new Array(ORDERS);
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < ORDERS) {
            const i = next++;
            outcomes[i] = await placeOnce([a.url, b.url], `chaos-${process.pid}-${i}`, a.keys.all, i, deadline);
          }
        }),
      );
      state.setFaults({ exchangeAnswerFaults: {} });
      // The two minutes are a wall-clock figure a starved machine stretches: a client still without
      // a terminal answer is not a lost order (it knows it is not done). It goes on retrying, with the same
      // key, now that no answer is lost; the promise judged below is exactly one order per client.
      const late = outcomes.flatMap((outcome, i) => (outcome.orderId === undefined ? [i] : []));
      process.stdout.write(
        `chaos: ${ORDERS - late.length} of ${ORDERS} clients held a terminal answer within ${DEADLINE_MS / 1_000} s\n`,
      );
      await Promise.all(
        late.map(async (i) => {
          const more = await placeOnce(
            [a.url, b.url],
            `chaos-${process.pid}-${i}`,
            a.keys.all,
            i,
            Date.now() + LATE_MS,
          );
          outcomes[i] = {
            orderId: more.orderId,
            attempts: outcomes[i]!.attempts + more.attempts,
            statuses: {
              ...outcomes[i]!.statuses,
              ...Object.fromEntries(Object.entries(more.statuses).map(([status, n]) => [`late ${status}`, n])),
              late: more.attempts,
            },
          };
        }),
      );

      const dropped = state.counter('exchange.answersDropped.insertOrder');
      const held = state.counter('exchange.answersHeld.insertOrder');
      const atExchange: string[] = [];
      let pageToken: string | undefined;
      do {
        const page = state.engine.searchOrders({
          symbol: SYMBOL,
          startTime: startedAt,
          pageSize: 1_000,
          ...(pageToken ? { pageToken } : {}),
        });
        atExchange.push(...page.order.map((order) => order.id));
        pageToken = page.nextPageToken || undefined;
      } while (pageToken);
      const statuses: Record<string, number> = {};
      for (const outcome of outcomes)
        for (const [status, n] of Object.entries(outcome.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
      process.stdout.write(
        `chaos: ${ORDERS} clients, ${outcomes.reduce((n, o) => n + o.attempts, 0)} attempts (${JSON.stringify(statuses)}); sandbox dropped ${dropped} and held ${held} answers; ${atExchange.length} orders at the exchange\n`,
      );

      expect(dropped + held).toBeGreaterThan(0);
      // Exactly one order per client: no resend reached the exchange twice.
      expect(atExchange.length).toBe(ORDERS);
      // Every client holds a terminal answer, the one order the exchange has for it.
      const held200 = outcomes.map((outcome) => outcome.orderId);
      expect(held200.filter((id) => id === undefined)).toEqual([]);
      expect(new Set(held200).size).toBe(ORDERS);
      expect(new Set(held200)).toEqual(new Set(atExchange));

      // The journal has each order's timeline: received, sent, then the answer or the resolution; and its chain is whole.
      const { openJournalDatabase } = await import('@lib/journal');
      const reader = await openJournalDatabase({ ...a.config.journal, url: process.env.TEST_PG_URL });
      try {
        const timelineOf = async (orderId: string) => {
          const kinds = (await reader.journal.timeline({ orderId })).records.map((record) => record.kind);
          return {
            orderId,
            received: kinds.includes('received'),
            sent: kinds.includes('sent'),
            closed: kinds.includes('answer') || kinds.includes('resolved'),
          };
        };
        const whole = (timeline: Awaited<ReturnType<typeof timelineOf>>) =>
          timeline.received && timeline.sent && timeline.closed;
        for (const orderId of atExchange) {
          // A resolution is stored for the client's replay, then journaled: the last client may hold its
          // answer a moment before the `resolved` record is committed, so a missing close is awaited.
          const timeline = await eventually(() => timelineOf(orderId), whole, 10_000);
          expect(timeline).toEqual({ orderId, received: true, sent: true, closed: true });
        }
        expect((await reader.journal.verify()).breaks).toEqual([]);
      } finally {
        await reader.close();
      }
    },
    DEADLINE_MS + LATE_MS + 90_000,
  );
});
