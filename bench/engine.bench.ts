// In-process order inserts per second through the sandbox's matching engine, on a mix that looks like
// a market: mostly resting limits around a drifting mid, some crossing limits and IOCs, a few market
// orders and cancels, over eight instruments and forty firms. Target: at least 50,000 inserts/s.
import { loadavg } from 'node:os';

import { Prng } from '../apps/sandbox/src/catalog/fixture/prng.js';
import { MatchingEngine, type OrderRequest, type Side } from '../apps/sandbox/src/engine/index.js';

const TARGET_INSERTS_PER_SECOND = 50_000;
const ROUND_OPERATIONS = 100_000;
const ROUNDS = 3;

/** The sandbox fixtures' seeded PRNG (mulberry32), so every run replays the same order flow. */
function prng(seed: number): () => number {
  const generator = new Prng(seed);
  return () => generator.next();
}

interface RoundResult extends Counts {
  insertsPerSecond: number;
  /** Inserts per second of this process's own CPU time: steadier than wall time on a shared machine. */
  insertsPerCpuSecond: number;
  trades: number;
  priceLevelsAtEnd: number;
}

/** Forty firms of three users each; users of one firm never trade with each other. */
const ACCOUNTS = Array.from({ length: 120 }, (_, i) => `firms/f${i % 40}/users/u${Math.floor(i / 40)}`);

function orderFlow(random: () => number, symbols: readonly string[], mids: number[]): OrderRequest | 'cancel' {
  const pick = Math.floor(random() * symbols.length);
  if (random() < 0.05) mids[pick] = Math.min(80, Math.max(20, mids[pick] + (random() < 0.5 ? -1 : 1)));
  const mid = mids[pick];
  const side: Side = random() < 0.5 ? 'SIDE_BUY' : 'SIDE_SELL';
  const sign = side === 'SIDE_BUY' ? 1 : -1;
  const account = ACCOUNTS[Math.floor(random() * ACCOUNTS.length)];
  const base = { symbol: symbols[pick], side, account, orderQty: 1 + Math.floor(random() * 10) };
  const roll = random();
  if (roll < 0.6)
    return {
      ...base,
      price: mid - sign * (1 + Math.floor(random() * 5)),
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    };
  if (roll < 0.75) return { ...base, price: mid + sign * 2, timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' };
  if (roll < 0.85) return { ...base, price: mid + sign, timeInForce: 'TIME_IN_FORCE_DAY' };
  if (roll < 0.9)
    return { ...base, type: 'ORDER_TYPE_MARKET_TO_LIMIT', timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' };
  return 'cancel';
}

function round(seed: number, operations: number, listen: boolean): RoundResult {
  let now = Date.UTC(2026, 10, 22, 15);
  const sut = new MatchingEngine({ clock: () => now });
  if (listen) for (const kind of ['book', 'execution', 'trade'] as const) sut.on(kind, () => undefined);
  const symbols = sut
    .instruments()
    .filter((instrument) => instrument.state === 'INSTRUMENT_STATE_OPEN')
    .slice(0, 8)
    .map((instrument) => instrument.symbol);
  const mids = symbols.map(() => 50);
  const random = prng(seed);
  const resting: { orderId: string; account: string }[] = [];
  const counts: Counts = { inserts: 0, cancels: 0, rejected: 0 };
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < operations; i++) {
    now += 1;
    const request = orderFlow(random, symbols, mids);
    if (request === 'cancel') cancelOne(sut, takeAny(resting, random), counts);
    else insertOne(sut, request, resting, counts);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const priceLevelsAtEnd = symbols.reduce(
    (sum, symbol) => sum + sut.bbo(symbol).bidDepth + sut.bbo(symbol).askDepth,
    0,
  );
  return {
    insertsPerSecond: Math.round(counts.inserts / seconds),
    insertsPerCpuSecond: Math.round(counts.inserts / cpuSeconds),
    ...counts,
    trades: Number(sut.tradeStats().stats.totalTradeCount),
    priceLevelsAtEnd,
  };
}

interface Counts {
  inserts: number;
  cancels: number;
  rejected: number;
}

function insertOne(
  sut: MatchingEngine,
  request: OrderRequest,
  resting: { orderId: string; account: string }[],
  counts: Counts,
): void {
  const result = sut.insert(request);
  counts.inserts++;
  if (result.order.state === 'ORDER_STATE_REJECTED') counts.rejected++;
  else if (result.order.leavesQty > 0) resting.push({ orderId: result.orderId, account: request.account });
}

/** Cancels an order that rested on entry, if it is still working (it may have traded since). */
function cancelOne(
  sut: MatchingEngine,
  target: { orderId: string; account: string } | undefined,
  counts: Counts,
): void {
  if (target && sut.order(target.orderId)?.leavesQty) sut.cancel(target);
  counts.cancels++;
}

/** Removes and returns a random element in O(1): the last element fills its place. */
function takeAny<T>(items: T[], random: () => number): T | undefined {
  if (items.length === 0) return undefined;
  const at = Math.floor(random() * items.length);
  const item = items[at];
  items[at] = items[items.length - 1];
  items.pop();
  return item;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function run(): Promise<Record<string, unknown>> {
  // The machine is shared: the load before the run says how far to trust the figures.
  const loadAverage1m = loadavg()[0];
  round(1, 20_000, false); // warm-up, so the JIT has compiled the hot paths before measuring
  const quiet = Array.from({ length: ROUNDS }, (_, i) => round(100 + i, ROUND_OPERATIONS, false));
  const listened = Array.from({ length: ROUNDS }, (_, i) => round(200 + i, ROUND_OPERATIONS, true));
  const insertsPerSecond = median(quiet.map((r) => r.insertsPerSecond));
  const insertsPerCpuSecond = median(quiet.map((r) => r.insertsPerCpuSecond));
  return {
    target: `>= ${TARGET_INSERTS_PER_SECOND} inserts/s`,
    insertsPerSecond,
    insertsPerCpuSecond,
    insertsPerSecondWithListeners: median(listened.map((r) => r.insertsPerSecond)),
    insertsPerCpuSecondWithListeners: median(listened.map((r) => r.insertsPerCpuSecond)),
    meetsTarget: insertsPerSecond >= TARGET_INSERTS_PER_SECOND,
    meetsTargetOnCpuTime: insertsPerCpuSecond >= TARGET_INSERTS_PER_SECOND,
    loadAverage1m,
    operationsPerRound: ROUND_OPERATIONS,
    mix: '60% resting GTC limits, 15% crossing IOC, 10% crossing DAY limits, 5% market IOC, 10% cancels; 8 instruments, 40 firms',
    rounds: quiet,
    roundsWithListeners: listened,
  };
}
