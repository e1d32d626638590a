import {
  FIRM,
  OTHER_PARTICIPANT,
  PARTICIPANT,
  type Json,
  type Stack,
  eventually,
  startStack,
} from './support/stack.js';
import { WsTestClient, seqGaps } from './support/ws-client.js';

const DROP_COPY = 'exchange.dropcopy';
const TRADES = 'exchange.trades';
const SYMBOL = 'aec-nba-lal-gsw-2026-11-21';
const CAROL = 'firms/OTHERFIRM/users/carol';
const ALICE_ONLY = 'alice-only';

type SandboxState = Stack['sandbox']['state'];

/** The firm's executions (id, account) and every trade (id, both accounts) as the engine makes them. */
function recordFlow(state: SandboxState) {
  const executions: { id: string; account: string }[] = [];
  const trades: { id: string; accounts: string[] }[] = [];
  const stops = [
    state.engine.on('execution', ({ execution }) => {
      if (execution.order.account.startsWith(`firms/${FIRM}/`))
        executions.push({ id: execution.id, account: execution.order.account });
    }),
    state.engine.on('trade', ({ trade }) =>
      trades.push({ id: trade.tradeId, accounts: [trade.buyAccount, trade.sellAccount] }),
    ),
  ];
  return { executions, trades, stop: () => stops.forEach((stop) => stop()) };
}

/** Alice's resting buy crossed by bob, bob's by carol (another firm), alice's by carol: every pairing of sides. */
function trade(state: SandboxState, i: number): void {
  const order = (
    account: string,
    side: 'SIDE_BUY' | 'SIDE_SELL',
    tif: 'TIME_IN_FORCE_GOOD_TILL_CANCEL' | 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
  ) => state.engine.insert({ symbol: SYMBOL, side, orderQty: 1, price: 40 + (i % 10), timeInForce: tif, account });
  const [maker, taker] = [
    [PARTICIPANT, OTHER_PARTICIPANT],
    [OTHER_PARTICIPANT, CAROL],
    [PARTICIPANT, CAROL],
    [OTHER_PARTICIPANT, PARTICIPANT],
  ][i % 4]!;
  order(maker, 'SIDE_BUY', 'TIME_IN_FORCE_GOOD_TILL_CANCEL');
  order(taker, 'SIDE_SELL', 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL');
  if (i % 5 === 0) order(OTHER_PARTICIPANT, 'SIDE_BUY', 'TIME_IN_FORCE_GOOD_TILL_CANCEL'); // bob alone: nothing for alice
}

const executionIds = (frames: Json[]): string[] => frames.flatMap((f) => f.data.executions.map((e: Json) => e.id));
const reports = (frames: Json[]): Json[] => frames.flatMap((f) => f.data.tradeCaptureReports);

async function subscribed(
  url: string,
  key: string,
  resumeFrom: Record<string, unknown> = { [DROP_COPY]: 0, [TRADES]: 0 },
): Promise<WsTestClient> {
  const client = await WsTestClient.open(url, { key });
  client.send({ type: 'subscribe', id: 's', topics: [DROP_COPY, TRADES], resumeFrom });
  await client.next((f) => f.type === 'ack' && f.topics.length === 2, 15_000);
  return client;
}

/** Nothing of bob's in what a client received: no frame names him, no execution or trade side is his. */
function expectNothingOfBob(client: WsTestClient): void {
  const frames = [...client.topic(DROP_COPY), ...client.topic(TRADES)];
  expect(frames.filter((f) => JSON.stringify(f).includes('users/bob')).map((f) => `${f.topic}#${f.seq}`)).toEqual([]);
}

describe('firm-wide feeds narrowed to the participants a client holds (two instances, Redis)', () => {
  it("an alice-only client gets alice's executions and trades only, with the other side's identity hidden, on both instances and after a resume; a client holding both sees both sides", async () => {
    const redisKeyPrefix = `ff${process.pid}:${Date.now()}:`;
    const clients = [
      { id: ALICE_ONLY, scopes: ['read:dropcopy' as const], participants: [PARTICIPANT], retailAccounts: ['main'] },
    ];
    const a = await startStack({ redis: true, redisKeyPrefix, clients, sandbox: { grpc: { heartbeatMs: 200 } } });
    let b: Stack | undefined;
    const open: WsTestClient[] = [];
    try {
      b = await startStack({ redis: true, redisKeyPrefix, clients, reuseSandbox: a.sandbox });
      const { state } = a.sandbox;
      const flow = recordFlow(state);
      const everything = await subscribed(a.url, a.keys.all!); // a holds both topics
      const aliceOnA = await subscribed(a.url, a.keys[ALICE_ONLY]!);
      const aliceOnB = await subscribed(b.url, b.keys[ALICE_ONLY]!); // b relays them
      open.push(everything, aliceOnA, aliceOnB);

      for (let i = 0; i < 24; i++) trade(state, i);
      const firstHalf = flow.executions.length;
      const tradesBefore = flow.trades.length;
      await eventually(
        async () => executionIds(everything.topic(DROP_COPY)).length,
        (n) => n >= firstHalf,
        15_000,
      );
      await eventually(
        async () => reports(everything.topic(TRADES)).length,
        (n) => n >= tradesBefore,
        15_000,
      );
      const alicesIds = (upTo: number) =>
        flow.executions
          .slice(0, upTo)
          .filter((e) => e.account === PARTICIPANT)
          .map((e) => e.id);
      await eventually(
        async () => executionIds(aliceOnB.topic(DROP_COPY)).length,
        (n) => n >= alicesIds(firstHalf).length,
        15_000,
      );

      // The alice-only client on b leaves; the flow goes on; it comes back on a with its resume points.
      await eventually(
        async () => reports(aliceOnB.topic(TRADES)).length,
        (n) => n >= flow.trades.filter((t) => t.accounts.includes(PARTICIPANT)).length,
        15_000,
      );
      const lastOf = (topic: string) => aliceOnB.topic(topic).at(-1)!;
      const resumeFrom = Object.fromEntries(
        [DROP_COPY, TRADES].map((topic) => [topic, { epoch: lastOf(topic).epoch, seq: lastOf(topic).seq }]),
      );
      const receivedBefore = {
        executions: executionIds(aliceOnB.topic(DROP_COPY)),
        trades: reports(aliceOnB.topic(TRADES)),
      };
      aliceOnB.close();
      for (let i = 24; i < 48; i++) trade(state, i);
      const resumed = await subscribed(a.url, a.keys[ALICE_ONLY]!, resumeFrom);
      open.push(resumed);
      flow.stop();

      const all = flow.executions.length;
      await eventually(
        async () => executionIds(everything.topic(DROP_COPY)).length,
        (n) => n >= all,
        15_000,
      );
      await eventually(
        async () => reports(everything.topic(TRADES)).length,
        (n) => n >= flow.trades.length,
        15_000,
      );
      await eventually(
        async () => executionIds(aliceOnA.topic(DROP_COPY)).length,
        (n) => n >= alicesIds(all).length,
        15_000,
      );
      await eventually(
        async () => executionIds(resumed.topic(DROP_COPY)).length,
        (n) => n >= alicesIds(all).length - receivedBefore.executions.length,
        15_000,
      );
      const alicesTrades = flow.trades.filter((t) => t.accounts.includes(PARTICIPANT)).map((t) => t.id);
      await eventually(
        async () => reports(resumed.topic(TRADES)).length + receivedBefore.trades.length,
        (n) => n >= alicesTrades.length,
        15_000,
      );

      // The firm-wide client: every execution and trade, both sides named.
      expect(executionIds(everything.topic(DROP_COPY))).toEqual(flow.executions.map((e) => e.id));
      expect(reports(everything.topic(TRADES)).map((t) => t.id)).toEqual(flow.trades.map((t) => t.id));
      expect(
        reports(everything.topic(TRADES)).some((t) =>
          [t.aggressor?.order?.account, t.passive?.order?.account].includes(OTHER_PARTICIPANT),
        ),
      ).toBe(true);
      // A trade between alice and bob (once the sandbox lets one firm's participants trade with each other): both sides named.
      const betweenThem = new Set(
        flow.trades
          .filter((t) => t.accounts.includes(PARTICIPANT) && t.accounts.includes(OTHER_PARTICIPANT))
          .map((t) => t.id),
      );
      for (const report of reports(everything.topic(TRADES)).filter((t) => betweenThem.has(t.id))) {
        expect([report.aggressor?.order?.account, report.passive?.order?.account].sort()).toEqual(
          [PARTICIPANT, OTHER_PARTICIPANT].sort(),
        );
      }

      // Alice-only, on the holder, on the relay, and resumed on the other instance: exactly alice's, once, in order.
      expect(executionIds(aliceOnA.topic(DROP_COPY))).toEqual(alicesIds(all));
      expect(receivedBefore.executions).toEqual(alicesIds(firstHalf).slice(0, receivedBefore.executions.length));
      expect([...receivedBefore.executions, ...executionIds(resumed.topic(DROP_COPY))]).toEqual(alicesIds(all));
      expect(reports(aliceOnA.topic(TRADES)).map((t) => t.id)).toEqual(alicesTrades);
      expect([...receivedBefore.trades, ...reports(resumed.topic(TRADES))].map((t) => t.id)).toEqual(alicesTrades);
      expect(resumed.topic(DROP_COPY).every((f) => f.type === 'update')).toBe(true); // resumed in its numbering, no resync

      // In each trade, alice's side is whole; the other side (bob's, once the sandbox lets one firm's
      // participants trade with each other) says what traded, not who: no execution or order id, no account.
      for (const report of reports(aliceOnA.topic(TRADES))) {
        const sides = [report.aggressor, report.passive].filter((side) => side);
        const mine = sides.filter((side) => side.order?.account === PARTICIPANT);
        expect(mine.length).toBeGreaterThan(0);
        expect(mine.every((side) => typeof side.id === 'string' && side.order.id)).toBe(true);
        for (const theirs of sides.filter((side) => side.order?.account !== PARTICIPANT)) {
          expect(theirs.id).toBeUndefined();
          expect(theirs.order).toEqual({ symbol: SYMBOL, side: expect.any(String) });
        }
      }

      for (const client of [aliceOnA, aliceOnB, resumed]) {
        expectNothingOfBob(client);
        expect(seqGaps(client.topic(DROP_COPY))).toEqual([]);
        expect(seqGaps(client.topic(TRADES))).toEqual([]);
      }
      const me = await fetch(`${a.url}/me`, { headers: { authorization: `Bearer ${a.keys[ALICE_ONLY]}` } }).then(
        (r) => r.json() as Promise<Json>,
      );
      expect(me).toMatchObject({ firmWide: false, feedScope: 'participants' });
    } finally {
      for (const client of open) client.close();
      await b?.gateway.close();
      await a.close().catch(() => undefined);
    }
  }, 90_000);
});
