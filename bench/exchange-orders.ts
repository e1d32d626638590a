// The order insert path of `npm run bench exchange` (issues 26, 27 and 28 item 3): POST
// /exchange/v1/trading/orders through the gateway against POST /v1/trading/orders on the sandbox
// directly (the floor), at a paced 1,000 orders/s, in the same run, in four gateway configurations:
// risk checks and journal both on, risk off, journal off, both off. Measured before and after a
// saturation phase of closed-loop inserts. Reports only; asserts nothing.
import { loadavg } from 'node:os';

import { ExchangeTokenProvider } from '@lib/auth';

import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import type { LoadRun, LoadSpec } from './exchange-load.worker.js';
import { type BenchGateway, load, type LoadReport, ms, type ProcessFigures, report, startBenchGateway, watchProcess } from './exchange-stack.js';

export const ORDER_SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
/** Each order target trades as its own firm (sandbox exchange clients 2-6), so no gateway receives another target's order and drop-copy events. */
export const ORDER_FIRMS = ['ORDDIRECT', 'ORDFULL', 'ORDRISKOFF', 'ORDJOURNALOFF', 'ORDBARE'] as const;
export const ORDER_CLIENTS_FROM = 2;
const participantOf = (firm: string) => `firms/${firm}/users/alice`;
const RATE = 1_000;
const CONNECTIONS = 10;
const SATURATION_CONNECTIONS = 50;
const ROUNDS = 4;
const ROUND_SECONDS = 3;
const WARM_UP_SECONDS = 1;
const SATURATION_SECONDS = 4;

/** A resting buy of one contract at 10¢: the book's asks start at 52¢ (another firm), so nothing ever crosses. */
const ORDER = { symbol: ORDER_SYMBOL, side: 'SIDE_BUY', type: 'ORDER_TYPE_LIMIT', timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL', orderQty: '1', price: '10' };

/** Limits at every scope, each checked on every order and none reached: the risk step's whole cost, refusing nothing. */
const RISK_LIMITS = [
  { scope: 'firm', maxOrderQty: 10_000, maxOrderNotional: 1_000_000, maxOpenOrders: 100_000_000 },
  { scope: 'team', id: 'bench', maxOrderQty: 5_000, maxOpenOrders: 50_000_000 },
  { scope: 'client', id: 'bench', market: 'aec-nfl-*', maxOrderQty: 1_000, maxOrderNotional: 100_000, maxOpenOrders: 10_000_000 },
] as const;

export interface Journal {
  /** The owner's URL (migrations) and the application role's. */
  url: string;
  appUrl: string;
  kind: string;
}

interface Configuration {
  name: 'full' | 'riskOff' | 'journalOff' | 'bare';
  risk: boolean;
  journal: boolean;
}

const CONFIGURATIONS: Configuration[] = [
  { name: 'full', risk: true, journal: true },
  { name: 'riskOff', risk: false, journal: true },
  { name: 'journalOff', risk: true, journal: false },
  { name: 'bare', risk: false, journal: false },
];

function startOrderGateway(sandbox: RunningSandbox, configuration: Configuration, journal: Journal, exchangeClient: number): Promise<BenchGateway> {
  return startBenchGateway(sandbox, {
    exchangeClient,
    participant: participantOf(ORDER_FIRMS[exchangeClient - ORDER_CLIENTS_FROM]),
    // The published insert figure (30-400/s by tier) would refuse most of 1,000/s.
    liftedBuckets: ['exchange.orders.insert'],
    config: {
      risk: { limits: configuration.risk ? RISK_LIMITS : [] },
      // Each configuration its own schema of the same server, so no two share a hash chain.
      journal: { enabled: configuration.journal, url: journal.appUrl, migrationUrl: journal.url, schema: `bench_${configuration.name.toLowerCase()}` },
    },
  });
}

type Target = Pick<LoadSpec, 'url' | 'headers'> & { name: string };

/**
 * Warm-up of each target, then ROUNDS rounds in which every target runs once in turn; each one's
 * samples pooled, with what this process (sandbox, gateways) did while that target was measured.
 */
async function paced(targets: Target[]): Promise<Record<string, LoadReport & { process: ProcessFigures }>> {
  const order = (target: Target) => ({ body: ORDER, clordIdPrefix: target.name });
  const spec = (target: Target, durationSeconds: number): LoadSpec => ({ url: target.url, headers: target.headers, order: order(target), connections: CONNECTIONS, durationSeconds, overallRate: RATE });
  for (const target of targets) await load(spec(target, WARM_UP_SECONDS));
  const runs = new Map<string, LoadRun[]>(targets.map((target) => [target.name, []]));
  const watched = new Map(targets.map((target) => [target.name, watchProcess()]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) {
      const watch = watched.get(target.name)!;
      watch.resume();
      const run = await load(spec(target, ROUND_SECONDS));
      watch.pause(run.timesMs.length + run.failures);
      runs.get(target.name)!.push(run);
    }
  }
  return Object.fromEntries(targets.map((target) => [target.name, { ...report(runs.get(target.name)!), process: watched.get(target.name)!.figures() }]));
}

function added(of: LoadReport, over: LoadReport): { p50Ms: number; p99Ms: number } {
  return { p50Ms: ms(of.p50Ms - over.p50Ms), p99Ms: ms(of.p99Ms - over.p99Ms) };
}

function summary(reports: Record<string, LoadReport>) {
  const { direct, full, riskOff, journalOff, bare } = reports;
  return {
    ...reports,
    addedOverDirect: { full: added(full, direct), riskOff: added(riskOff, direct), journalOff: added(journalOff, direct), bare: added(bare, direct) },
    riskChecksAdd: { full_minus_riskOff: added(full, riskOff), journalOff_minus_bare: added(journalOff, bare) },
    journalAndIdempotencyAdd: { full_minus_journalOff: added(full, journalOff), riskOff_minus_bare: added(riskOff, bare) },
  };
}

export async function orderInsertBench(sandbox: RunningSandbox, journal: Journal): Promise<Record<string, unknown>> {
  const gateways: BenchGateway[] = [];
  try {
    const directUrl = `${sandbox.urls.exchange}/v1/trading/orders`;
    // The direct side's token, of its own firm's client, from a gateway started for that and closed (it would receive that firm's events).
    const tokenGateway = await startOrderGateway(sandbox, { name: 'bare', risk: false, journal: false }, journal, ORDER_CLIENTS_FROM);
    const authorization = await tokenGateway.app.get(ExchangeTokenProvider).authorization(directUrl);
    await tokenGateway.app.close();
    // One after another: each runs its schema's migrations at boot.
    for (const [i, configuration] of CONFIGURATIONS.entries()) gateways.push(await startOrderGateway(sandbox, configuration, journal, ORDER_CLIENTS_FROM + 1 + i));
    const targets: Target[] = [
      { name: 'direct', url: directUrl, headers: { authorization, 'x-participant-id': participantOf(ORDER_FIRMS[0]) } },
      ...CONFIGURATIONS.map((configuration, i) => ({ name: configuration.name, url: `${gateways[i].url}/exchange/v1/trading/orders`, headers: gateways[i].headers })),
    ];
    // Each target answers an order id for one order before anything is measured.
    for (const target of targets) {
      const res = await fetch(target.url, { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: JSON.stringify({ ...ORDER, clordId: `check-${target.name}` }) });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('orderId')) throw new Error(`${target.name} answered ${res.status}: ${text.slice(0, 300)}`);
    }

    const loadBefore = loadavg()[0];
    const ordersBefore = sandbox.state.counter('exchange.calls.insertOrder');
    const before = summary(await paced(targets));
    const loadAfterFixed = loadavg()[0];
    const saturation: Record<string, LoadReport> = {};
    for (const target of targets) {
      saturation[target.name] = report([await load({ url: target.url, headers: target.headers, order: { body: ORDER, clordIdPrefix: `sat-${target.name}` }, connections: SATURATION_CONNECTIONS, durationSeconds: SATURATION_SECONDS })]);
    }
    const after = summary(await paced(targets));
    return {
      route: `POST /exchange/v1/trading/orders (gateway, 4 configurations) vs POST /v1/trading/orders (sandbox directly, bearer token): a resting GTC buy of 1 at 10¢ on ${ORDER_SYMBOL}, a new clordId each`,
      configurations: {
        direct: 'the sandbox called directly: the floor',
        full: `risk checks on (${RISK_LIMITS.length} limits: firm, team and client-by-market; max qty, max notional, max open orders, none reached) and the idempotency record and journal on`,
        riskOff: 'risk.limits empty; idempotency record and journal on',
        journalOff: 'risk checks on; journal.enabled false (no idempotency record, no journal)',
        bare: 'risk.limits empty and journal.enabled false',
      },
      journalStore: journal.kind,
      rounds: `${ROUNDS} rounds of ${ROUND_SECONDS} s per target in turn at a paced ${RATE} orders/s over ${CONNECTIONS} connections, after ${WARM_UP_SECONDS} s of warm-up each`,
      beforeSaturation: before,
      saturation: { connections: SATURATION_CONNECTIONS, seconds: SATURATION_SECONDS, ...saturation },
      afterSaturation: after,
      sandboxInsertsDuringRun: sandbox.state.counter('exchange.calls.insertOrder') - ordersBefore,
      loadAverage1m: { before: Number(loadBefore.toFixed(2)), afterFixedRate: Number(loadAfterFixed.toFixed(2)), after: Number(loadavg()[0].toFixed(2)) },
      notes: [
        'Reports only: nothing is asserted. addedOverDirect is each gateway configuration minus the sandbox directly; riskChecksAdd and journalAndIdempotencyAdd are differences between gateway configurations in the same rounds.',
        'Risk "off" is risk.limits empty (there is no enabled flag): what still runs per order is field policing (entitlement check, manualOrderIndicator stamped), the trading-state verdict (a local map lookup; no state is set), the limit lookups that find none, and the open-order reservation that returns at once with nothing to count.',
        'Journal "off" is journal.enabled false, a bench and diagnostic switch added for this: the order is sent with no idempotency claim, no journal append, no answer recorded.',
        'No Redis: the open-order count (maxOpenOrders) uses the in-memory store, and the insert budget decides locally (bucket lifted to 1e9/s). With Redis each reservation is one more Lua call.',
        "The sandbox's per-firm order-entry limit is lifted by config (exchange.limits['order-entry'] = 'off'); every order rests, none crosses (asks from another firm start at 52¢).",
        "Each target trades as its own firm, so a gateway's order and drop-copy streams (and, with the journal on, their journal records) carry only its own orders; the book-read gateways are closed before this part.",
        'Sandbox, gateways and PostgreSQL client share one process; the load generator runs in a worker thread; PostgreSQL is a separate process on the same 2 cores.',
      ],
    };
  } finally {
    for (const gateway of gateways) await gateway.app.close();
  }
}
