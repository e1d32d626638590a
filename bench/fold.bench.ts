// `npm run bench fold`: what one update of an `exchange.orders.<participant>` topic costs its holder
// with a cluster (Redis) behind the hub, by how many orders the participant has working.
//
// - `fold` (today): the update is folded into the topic's state by id (WorkingOrders), and the whole
//   state is encoded for the cluster's record every RECORD_EVERY updates (TopicState.recordDue).
// - `copyEach` (the baseline, as before this change): the state rebuilt as a new list per update (a
//   copy of every working order) and encoded for the record after each update.
//
// Both run in this process, in alternating rounds, on the same orders and updates. CPU time per update
// is the figure (process.cpuUsage); `recordedBytesPerUpdate` is what the holder hands Redis beside
// the frame itself. No Redis is involved: the bench measures the hub's side of the record.
import { loadavg } from 'node:os';

import { WorkingOrders } from '../libs/exchange/src/grpc/order-updates.messages.js';
import type { OrderMessage, OrdersUpdate } from '../libs/exchange/src/grpc/order-updates.messages.js';
import { EXCHANGE_ORDERS_POLICY } from '../libs/exchange/src/grpc/order-updates.service.js';
import { TopicState } from '../libs/fanout/src/hub/topic.state.js';
import type { TopicPolicy } from '../libs/fanout/src/source/topic-source.types.js';
import { mergeFold } from '../libs/fanout/src/testing/hub.fixture.js';

const WORKING = [100, 1_000, 5_000];
const UPDATES_PER_ROUND = 2_000;
const ROUNDS = 3;
const ACCOUNT = 'firms/bench/users/mm';
const source = { open: () => undefined, close: () => undefined };

const BASELINE_POLICY: TopicPolicy = {
  conflate: false,
  // No log: every update's state is recorded, as every merged topic's was.
  fold: mergeFold((state, update) => {
    const copy = new WorkingOrders((state as { orders: OrderMessage[] }).orders);
    copy.apply(update as OrdersUpdate);
    return copy.data();
  }),
};

/** An order as the exchange's order stream decodes it (about the fields it carries). */
function order(i: number, state = 'ORDER_STATE_NEW', cumQty = '0'): OrderMessage {
  return {
    id: `ord-${i}`,
    account: ACCOUNT,
    state,
    clordId: `bench-${i}`,
    symbol: `aec-nfl-team${i % 20}-game`,
    side: i % 2 === 0 ? 'SIDE_BUY' : 'SIDE_SELL',
    type: 'ORDER_TYPE_LIMIT',
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    price: String(4_000 + (i % 500)),
    orderQty: '100',
    cumQty,
    leavesQty: String(100 - Number(cumQty)),
    avgPx: '0',
    insertTime: { seconds: '1795000000', nanos: 0 },
    participateDontInitiate: false,
  };
}

function round(policy: TopicPolicy, working: number, seed: number): { cpuUsPerUpdate: number; bytes: number } {
  const state = new TopicState(`exchange.orders.${ACCOUNT}`, { prefix: 'exchange.orders.', source, policy });
  const first = state.emit('snapshot', { orders: Array.from({ length: working }, (_, i) => order(i)) }, 1, 0);
  state.recordDue(first);
  let bytes = 0;
  let n = seed;
  const before = process.cpuUsage();
  for (let u = 0; u < UPDATES_PER_ROUND; u++) {
    n = (n * 1_103_515_245 + 12_345) % 2 ** 31;
    const i = n % working;
    // A partial fill of a working order: it stays working, so the state keeps its size.
    const update: OrdersUpdate = {
      execution: { id: `exec-${u}`, order: order(i, 'ORDER_STATE_PARTIALLY_FILLED', '1') },
    };
    const frame = state.emit('update', update, u + 2, 0);
    bytes += state.recordDue(frame)?.json.length ?? 0;
  }
  const used = process.cpuUsage(before);
  return { cpuUsPerUpdate: (used.user + used.system) / UPDATES_PER_ROUND, bytes: bytes / UPDATES_PER_ROUND };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(): Promise<Record<string, unknown>> {
  const loadAverage1m = { before: loadavg()[0] };
  round(EXCHANGE_ORDERS_POLICY, 1_000, 1); // warm-up: the JIT compiles both paths before measuring
  round(BASELINE_POLICY, 1_000, 1);
  const results = WORKING.map((working) => {
    const fold: { cpuUsPerUpdate: number; bytes: number }[] = [];
    const copyEach: { cpuUsPerUpdate: number; bytes: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating order, so load from elsewhere on the machine hits both alike.
      if (r % 2 === 0) {
        fold.push(round(EXCHANGE_ORDERS_POLICY, working, 100 + r));
        copyEach.push(round(BASELINE_POLICY, working, 100 + r));
      } else {
        copyEach.push(round(BASELINE_POLICY, working, 100 + r));
        fold.push(round(EXCHANGE_ORDERS_POLICY, working, 100 + r));
      }
    }
    const summary = (rounds: typeof fold) => ({
      cpuUsPerUpdate: Number(median(rounds.map((r) => r.cpuUsPerUpdate)).toFixed(2)),
      cpuUsPerUpdateRounds: rounds.map((r) => Number(r.cpuUsPerUpdate.toFixed(2))),
      recordedBytesPerUpdate: Math.round(median(rounds.map((r) => r.bytes))),
    });
    const today = summary(fold);
    const baseline = summary(copyEach);
    return {
      workingOrders: working,
      fold: today,
      copyEach: baseline,
      baselineOverFold: Number((baseline.cpuUsPerUpdate / today.cpuUsPerUpdate).toFixed(1)),
    };
  });
  return {
    updatesPerRound: UPDATES_PER_ROUND,
    rounds: ROUNDS,
    results,
    loadAverage1m: { ...loadAverage1m, end: loadavg()[0] },
    notes: [
      'fold: WorkingOrders by id, the whole state encoded for the cluster record every RECORD_EVERY updates (TopicState.recordDue)',
      'copyEach: the state copied per update and recorded after each update, as every merged topic was before',
    ],
  };
}
