// The order insert path of `npm run bench orders` and `npm run bench exchange` (issues 26, 27 and 28
// item 3): POST /exchange/v1/trading/orders through the gateway against POST /v1/trading/orders on
// the sandbox directly (the floor), at a paced 1,000 orders/s, before and after a saturation phase,
// in four gateway configurations: risk checks and journal on (`full`), risk off, journal off, both off
// (`bare`); with BENCH_ORDERS_BASELINE naming another build's gateway (its dist/apps/gateway/src/main.js),
// `full` and `bare` of that build too, in the same rounds.
//
// Each part in a process of its own, as production runs it: the sandbox (bench/orders-sandbox.process.ts),
// each gateway (the compiled main.js, as test/support/gateway-process.ts starts it), the load generator
// of each run (bench/exchange-load.worker.ts); PostgreSQL is a server of its own. With two CPUs and
// taskset (as bench/catalog.bench.ts pins): the gateways on one CPU, the sandbox, the load
// generator and PostgreSQL on the other. Each measured process carries bench/process-probe.ts: its CPU
// time and event-loop delay per phase. Reports only; asserts nothing.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { ExchangeTokenProvider, generateApiKey } from '@lib/auth';
import { stringify } from 'yaml';

import { freePort } from '../test/support/redis-server.js';
import type { LoadRun, LoadSpec } from './exchange-load.worker.js';
import {
  benchGatewayConfig,
  type LoadReport,
  ms,
  report,
  type SandboxPeer,
  startBenchGateway,
} from './exchange-stack.js';
import { ORDER_FIRMS } from './order-firms.js';
import type { ProbeFigures } from './process-probe.js';
import { processTreeCpuUs } from './process-tree-cpu.js';

export { ORDER_FIRMS } from './order-firms.js';
export const ORDER_SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const participantOf = (firm: string) => `firms/${firm}/users/alice`;
const RATE = 1_000;
/**
 * Connections of the paced load generator, BENCH_ORDERS_CONNECTIONS. Each carries one request at a time
 * (HTTP/1.1, no pipelining), so a request due while every connection waits for an answer queues in the
 * load generator. With 10 (before 2026-11-29) a 20-40 ms hiccup of a target filled them all, and the orders
 * due meanwhile waited in the generator's own queue for up to 86 ms of a 98 ms answer (a trace of every
 * order's due time, its write to the socket, the gateway's arrival and finish): each stall came out three to
 * four times longer than it was. With 128 the generator sends every order when it is due unless a target
 * has 128 unanswered, the open-loop load the pacer means to make.
 */
const CONNECTIONS = Number(process.env.BENCH_ORDERS_CONNECTIONS ?? 128);
const SATURATION_CONNECTIONS = 50;
/**
 * Rounds per target and phase. The machine stalls now and then for 100-270 ms (seen at half a core busy,
 * on one target or another, never the same twice): one stall in a round's 2,000 orders is its p99, so the
 * goals are judged on the median of the rounds' p99 (p99MedianMs; the pooled p99Ms is reported too).
 * BENCH_ORDERS_ROUNDS: more rounds narrow that median (a difference of 0.2 ms between two targets whose p99
 * moves by a millisecond or more from round to round needs more than five).
 */
const ROUNDS = Number(process.env.BENCH_ORDERS_ROUNDS ?? 5);
const ROUND_SECONDS = 2;
/**
 * Paced seconds per target before the first round, not recorded (BENCH_ORDERS_WARM_UP_SECONDS): V8 is still
 * compiling a fresh gateway's hot paths for several seconds (`perf record`: 28 % of its CPU went to the
 * optimizing compiler after 1 s of orders, 8 % some 30 s later), on the gateways' core.
 */
const WARM_UP_SECONDS = Number(process.env.BENCH_ORDERS_WARM_UP_SECONDS ?? 5);
const SATURATION_SECONDS = 3;

const has = (program: string, args: string[]) => spawnSync(program, args, { stdio: 'ignore' }).error === undefined;
const PINNED = cpus().length >= 2 && has('taskset', ['-V']);
const SERVER_CPU = '0';
const LOAD_CPU = '1';
/**
 * The sandbox (the exchange, which production reaches over the network) on the load generator's CPU: on the
 * gateways' CPU its ~0.4 ms per order left a gateway under 0.6 of a core at 1,000 orders/s, so the paced
 * phase measured the two queueing on one core, not the gateway's added latency.
 */
const SANDBOX_CPU = LOAD_CPU;
const pinned = (cpu: string, command: string, args: string[]): [string, string[]] =>
  PINNED ? ['taskset', ['-c', cpu, command, ...args]] : [command, args];

const GATEWAY_MAIN = resolve('dist/apps/gateway/src/main.js');
const here = resolve('dist/bench');
const PROBE = join(here, 'process-probe.js');

/** A resting buy of one contract at 10¢: the book's asks start at 52¢ (another firm), so nothing ever crosses. */
const ORDER = {
  symbol: ORDER_SYMBOL,
  side: 'SIDE_BUY',
  type: 'ORDER_TYPE_LIMIT',
  timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  orderQty: '1',
  price: '10',
};

/**
 * Limits at every scope, each checked on every order and none reached: the risk step's whole cost, refusing
 * nothing. Not here: `maxNetPosition` (it needs the position stream the bench's firms never open: it would
 * refuse RISK_POSITION_UNKNOWN) and `priceBand` (a resting order passes it without a reference).
 */
const RISK_LIMITS = [
  { scope: 'firm', maxOrderQty: 10_000, maxOrderNotional: 1_000_000, maxOpenOrders: 100_000_000 },
  { scope: 'team', id: 'bench', maxOrderQty: 5_000, maxOpenOrders: 50_000_000, maxOpenNotional: 1_000_000_000 },
  {
    scope: 'client',
    id: 'bench',
    market: 'aec-nfl-*',
    maxOrderQty: 1_000,
    maxOrderNotional: 100_000,
    maxOpenOrders: 10_000_000,
    maxOpenNotional: 100_000_000,
    maxOrdersPerSecond: 100_000,
  },
] as const;

/** What `full` runs on every order, besides what every gateway target runs (auth, identity binding, validation, budget, send, access line, metrics). */
const CHECKS_ON_IN_FULL = [
  'trading states (read locally: none latched)',
  'per-client message throttle (maxOrdersPerSecond 100,000)',
  'field policing (ignorePriceValidityChecks, manualOrderIndicator)',
  'maxOrderQty and maxOrderNotional at firm, team and client-by-market scope',
  'maxOpenOrders at every scope and maxOpenNotional at team and client scope: reserved before the send (in-memory store: no Redis), bound to the order id after',
  'reject breaker (counts upstream rejects; default figures)',
  'idempotency claim (the clordId as key), the journal intent written ahead, the `sent` and answer records, the answer kept for replay (PostgreSQL)',
];

export interface Journal {
  /** The owner's URL (migrations) and the application role's. */
  url: string;
  appUrl: string;
  kind: string;
  /** The server's process (the postmaster): its CPU and its backends' is read around each round. */
  pid?: number;
}

interface Configuration {
  name: string;
  risk: boolean;
  journal: boolean;
  /** The gateway build to run: this one's, or BENCH_ORDERS_BASELINE's. */
  main: string;
}

/** A child process that carries the probe, spoken to over IPC. */
class Probed {
  constructor(readonly child: ChildProcess) {}

  ask<T>(message: object, answer: (reply: Record<string, unknown>) => boolean): Promise<T> {
    return new Promise((resolvePromise, reject) => {
      const onMessage = (reply: Record<string, unknown>) => {
        if (!answer(reply)) return;
        this.child.off('message', onMessage);
        resolvePromise(reply as T);
      };
      this.child.on('message', onMessage);
      this.child.send(message, (error) => error && reject(error));
    });
  }

  reset = () => this.ask<unknown>({ probe: 'reset' }, (reply) => reply.probe === 'reset');
  read = () => this.ask<ProbeFigures>({ probe: 'read' }, (reply) => reply.probe === 'figures');

  stop(): Promise<void> {
    return new Promise((resolvePromise) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolvePromise();
      this.child.once('exit', () => resolvePromise());
      this.child.kill('SIGTERM');
    });
  }
}

/** BENCH_CPU_PROF_DIR=<dir>: every gateway process writes a V8 CPU profile there when it stops (`--cpu-prof`). */
const PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR;

function spawnProbed(
  cpu: string,
  script: string,
  env: Record<string, string>,
  logFile: string,
  profiled = false,
): Probed {
  const log = openSync(logFile, 'a');
  const profile = profiled && PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', resolve(PROFILE_DIR)] : [];
  // BENCH_GATEWAY_NODE_FLAGS: further node flags for the gateways (e.g. --perf-basic-prof for `perf record`).
  if (profiled && process.env.BENCH_GATEWAY_NODE_FLAGS)
    profile.push(...process.env.BENCH_GATEWAY_NODE_FLAGS.split(' '));
  const [command, args] = pinned(cpu, process.execPath, [...profile, '--import', PROBE, script]);
  const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', log, log, 'ipc'] });
  closeSync(log);
  return new Probed(child);
}

async function startSandboxProcess(dir: string): Promise<{ probed: Probed; peer: SandboxPeer }> {
  // The key files in a directory of their own: each gateway watches the directory of its key files and
  // reloads (reads and parses every RSA key) when it changes. Beside the log files, every flush of a log
  // was such a change: with seven targets, createPrivateKey was 7 % of `bare`'s busy time (CPU profile, 2026-11-28).
  const keyDir = join(dir, 'keys');
  mkdirSync(keyDir);
  const probed = spawnProbed(
    SANDBOX_CPU,
    join(here, 'orders-sandbox.process.js'),
    { ORDERS_SANDBOX_KEY_DIR: keyDir },
    join(dir, 'sandbox.log'),
  );
  const ready = await new Promise<SandboxPeer>((resolvePromise, reject) => {
    probed.child.once('exit', (code) =>
      reject(
        new Error(
          `sandbox process exited with ${code}: ${readFileSync(join(dir, 'sandbox.log'), 'utf8').slice(-2_000)}`,
        ),
      ),
    );
    probed.child.on(
      'message',
      (message: { ready?: boolean } & SandboxPeer) =>
        message.ready && resolvePromise({ urls: message.urls, keys: message.keys }),
    );
  });
  probed.child.removeAllListeners('exit');
  return { probed, peer: ready };
}

interface GatewayTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The process whose CPU per order is the target's figure: the gateway's, or for `direct` the sandbox's. */
  probed: Probed;
}

async function startGatewayProcess(
  peer: SandboxPeer,
  configuration: Configuration,
  journal: Journal,
  exchangeClient: number,
  dir: string,
): Promise<GatewayTarget & { stop: () => Promise<void> }> {
  const key = generateApiKey();
  const port = await freePort();
  const config = benchGatewayConfig(
    peer,
    {
      exchangeClient,
      participant: participantOf(ORDER_FIRMS[exchangeClient]),
      // The published insert figure (30-400/s by tier) would refuse most of 1,000/s.
      liftedBuckets: ['exchange.orders.insert'],
      config: {
        risk: { limits: configuration.risk ? RISK_LIMITS : [] },
        // Each configuration its own schema of the same server, so no two share a hash chain.
        journal: {
          enabled: configuration.journal,
          url: journal.appUrl,
          migrationUrl: journal.url,
          schema: `bench_${configuration.name.toLowerCase()}`,
        },
      },
    },
    key,
    port,
  );
  const configFile = join(dir, `gateway-${configuration.name}.yaml`);
  writeFileSync(configFile, stringify(config));
  const logFile = join(dir, `gateway-${configuration.name}.log`);
  // Access lines at info, as in production, into a file: their cost is the gateway's.
  const probed = spawnProbed(
    SERVER_CPU,
    configuration.main,
    { GATEWAY_CONFIG: configFile, LOG_LEVEL: 'info' },
    logFile,
    true,
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (probed.child.exitCode !== null)
      throw new Error(
        `gateway ${configuration.name} exited with ${probed.child.exitCode}: ${readFileSync(logFile, 'utf8').slice(-2_000)}`,
      );
    try {
      if ((await fetch(`${url}/health/live`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`gateway ${configuration.name} did not come up: ${readFileSync(logFile, 'utf8').slice(-2_000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: configuration.name,
    url: `${url}/exchange/v1/trading/orders`,
    headers: { authorization: `Bearer ${key}` },
    probed,
    stop: () => probed.stop(),
  };
}

/** One load run in a process of its own, on the load CPU. */
function load(spec: LoadSpec): Promise<LoadRun> {
  return new Promise((resolvePromise, reject) => {
    const [command, args] = pinned(LOAD_CPU, process.execPath, [join(here, 'exchange-load.worker.js')]);
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH, LOAD_SPEC: JSON.stringify(spec) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (run: LoadRun & { timesMs: number[] }) =>
      resolvePromise({ ...run, timesMs: Float64Array.from(run.timesMs) }),
    );
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load process exited with ${code}`)));
  });
}

interface TargetFigures extends LoadReport {
  /** CPU time of the target's process (gateway; for `direct`, the sandbox) per answered order, µs: the robust figure on a shared machine. */
  cpuUsPerOrder: number;
  /** The sandbox's CPU per order in the same phases (the same work behind every target). */
  sandboxCpuUsPerOrder: number;
  /** The load generator's and the PostgreSQL server's CPU per order in the same rounds (the journal's: 0 for targets without it). */
  loadCpuUsPerOrder: number;
  journalCpuUsPerOrder: number | undefined;
  /**
   * How busy each core was over the rounds, from the CPU figures (1 = a whole core): the gateway's core
   * (the target; `direct`: none), and the peers' core (sandbox, load generator and PostgreSQL together).
   * A core near 1 queues: its p99 is then that queue's, not the gateway's added latency.
   */
  coresBusy: { gateway: number | undefined; peers: number };
  /** Each round's own p99 (ms), and their median: the p99 the goals are judged on (see ROUNDS). */
  roundsP99Ms: number[];
  /**
   * Each round's p99 beside the longest stall of each process in it (ms): the target's and the sandbox's
   * event-loop delay max, the load generator's, and how late it sent its latest request; and the most orders
   * that waited in the generator's pool for a free connection (`queued`: 0 when each was written when due). A
   * round whose p99 is far above its processes' stalls was held up outside them (the kernel, the machine).
   */
  roundsStallsMs: { p99: number; target: number; sandbox: number; load: number; sentLate: number; queued: number }[];
  /**
   * The median p99 of the rounds whose peers did not stall (no event-loop delay of PEER_STALL_MS or more in
   * the load generator, nor in the sandbox when the target is a gateway), and how many there were: a
   * target's own stalls count against it, its peers' do not. Undefined when no round was quiet.
   */
  peersQuiet: { rounds: number; p99MedianMs: number | undefined };
  p99MedianMs: number;
  /** The target process's event-loop delay: median of the rounds' p50, worst p99 and max. */
  eventLoopDelayMs: { p50: number; p99: number; max: number };
}

/** A peer's event-loop delay of this much or more in a round makes that round's p99 the peer's, not the target's. */
const PEER_STALL_MS = 20;

function peersQuiet(stalls: TargetFigures['roundsStallsMs'], targetIsSandbox: boolean): TargetFigures['peersQuiet'] {
  const quiet = stalls.filter(
    (r) => r.load < PEER_STALL_MS && (targetIsSandbox || r.sandbox < PEER_STALL_MS), // NaN (no figure): not quiet
  );
  return {
    rounds: quiet.length,
    p99MedianMs: quiet.length === 0 ? undefined : ms(median(quiet.map((r) => r.p99))),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Warm-up of each target, then ROUNDS rounds in which every target runs once in turn (reversed every other round). */
async function paced(
  targets: GatewayTarget[],
  sandbox: Probed,
  journalCpuUs: () => number | undefined,
): Promise<Record<string, TargetFigures>> {
  const spec = (target: GatewayTarget, durationSeconds: number, prefix: string): LoadSpec => ({
    url: target.url,
    headers: target.headers,
    order: { body: ORDER, clordIdPrefix: `${prefix}${target.name}` },
    connections: CONNECTIONS,
    durationSeconds,
    overallRate: RATE,
  });
  for (const target of targets) await load(spec(target, WARM_UP_SECONDS, 'w-'));
  const runs = new Map<
    string,
    {
      load: LoadRun;
      cpuUs: number;
      sandboxCpuUs: number;
      journalCpuUs: number | undefined;
      delay: ProbeFigures['eventLoopDelayMs'];
      sandboxDelay: ProbeFigures['eventLoopDelayMs'];
    }[]
  >(targets.map((target) => [target.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      await Promise.all([target.probed.reset(), target.probed === sandbox ? undefined : sandbox.reset()]);
      const journalBefore = journalCpuUs();
      const run = await load(spec(target, ROUND_SECONDS, `r${round}-`));
      const journalAfter = journalCpuUs();
      const figures = await target.probed.read();
      const sandboxFigures = target.probed === sandbox ? figures : await sandbox.read();
      runs.get(target.name)!.push({
        load: run,
        cpuUs: figures.cpuUs,
        sandboxCpuUs: sandboxFigures.cpuUs,
        journalCpuUs:
          journalBefore === undefined || journalAfter === undefined ? undefined : journalAfter - journalBefore,
        delay: figures.eventLoopDelayMs,
        sandboxDelay: sandboxFigures.eventLoopDelayMs,
      });
    }
  }
  return Object.fromEntries(
    targets.map((target) => {
      const rs = runs.get(target.name)!;
      const answered = rs.reduce((sum, r) => sum + r.load.timesMs.length + r.load.failures, 0);
      const seconds = rs.reduce((sum, r) => sum + r.load.elapsedSeconds, 0);
      const cpu = rs.reduce((sum, r) => sum + r.cpuUs, 0);
      const sandboxCpu = rs.reduce((sum, r) => sum + r.sandboxCpuUs, 0);
      const loadCpu = rs.reduce((sum, r) => sum + r.load.cpuUs, 0);
      const journalCpu = rs.every((r) => r.journalCpuUs !== undefined)
        ? rs.reduce((sum, r) => sum + r.journalCpuUs!, 0)
        : undefined;
      const perOrder = (us: number) => Math.round(us / Math.max(1, answered));
      const busy = (us: number) => Math.round((us / 1e6 / Math.max(0.001, seconds)) * 100) / 100;
      const roundsP99Ms = rs.map((r) => report([r.load]).p99Ms);
      const roundsStallsMs = rs.map((r, i) => ({
        p99: roundsP99Ms[i]!,
        target: ms(r.delay.max),
        sandbox: ms(r.sandboxDelay.max),
        load: ms(r.load.stalls?.eventLoopDelayMaxMs ?? Number.NaN),
        sentLate: ms(r.load.stalls?.sentLateMaxMs ?? Number.NaN),
        queued: r.load.stalls?.queuedMax ?? Number.NaN,
      }));
      const figures: TargetFigures = {
        ...report(rs.map((r) => r.load)),
        roundsP99Ms,
        roundsStallsMs,
        p99MedianMs: ms(median(roundsP99Ms)),
        peersQuiet: peersQuiet(roundsStallsMs, target.probed === sandbox),
        cpuUsPerOrder: perOrder(cpu),
        sandboxCpuUsPerOrder: perOrder(sandboxCpu),
        loadCpuUsPerOrder: perOrder(loadCpu),
        journalCpuUsPerOrder: journalCpu === undefined ? undefined : perOrder(journalCpu),
        coresBusy: {
          gateway: target.probed === sandbox ? undefined : busy(cpu),
          peers: busy(sandboxCpu + loadCpu + (journalCpu ?? 0)),
        },
        eventLoopDelayMs: {
          p50: ms(median(rs.map((r) => r.delay.p50))),
          p99: ms(Math.max(...rs.map((r) => r.delay.p99))),
          max: ms(Math.max(...rs.map((r) => r.delay.max))),
        },
      };
      return [target.name, figures];
    }),
  );
}

/** Issue 28's goal for the order path over the sandbox directly, and issue 26's for what the risk checks add. */
const GOALS = { addedP50Ms: 0.2, addedP99Ms: 1, riskAddedP99Ms: 0.2, keptRate: 0.99 * RATE };
/** A core at least this busy over a target's rounds queues: its p99 is the queue's, and no goal is judged from it. */
const QUEUEING_BUSY = 0.8;

/** The difference of two targets' peers-quiet p99 medians, when both had a quiet round. */
function quietDifference(on: TargetFigures, off: TargetFigures): number | undefined {
  const [a, b] = [on.peersQuiet.p99MedianMs, off.peersQuiet.p99MedianMs];
  return a === undefined || b === undefined ? undefined : ms(a - b);
}

/** `on` minus `off` of one phase, both measured in its rounds: what the difference between them adds. */
function difference(on: TargetFigures | undefined, off: TargetFigures | undefined) {
  if (!on || !off) return undefined;
  return {
    p50Ms: ms(on.p50Ms - off.p50Ms),
    p99Ms: ms(on.p99Ms - off.p99Ms),
    p99MedianMs: ms(on.p99MedianMs - off.p99MedianMs),
    p99PeersQuietMedianMs: quietDifference(on, off),
    cpuUsPerOrder: on.cpuUsPerOrder - off.cpuUsPerOrder,
  };
}

function summary(figures: Record<string, TargetFigures>) {
  const direct = figures.direct!;
  const addedOverDirect = Object.fromEntries(
    Object.entries(figures)
      .filter(([name]) => name !== 'direct')
      .map(([name, of]) => [
        name,
        {
          p50Ms: ms(of.p50Ms - direct.p50Ms),
          p99Ms: ms(of.p99Ms - direct.p99Ms),
          p99MedianMs: ms(of.p99MedianMs - direct.p99MedianMs),
          p99PeersQuietMedianMs: quietDifference(of, direct),
        },
      ]),
  );
  // Issue 26: the risk checks on against the same path with them off, in the same rounds; with the journal
  // on (full − riskOff, the production path) and off (journalOff − bare).
  const riskAdded = {
    withJournal: difference(figures.full, figures.riskOff),
    withoutJournal: difference(figures.journalOff, figures.bare),
  };
  const kept = (of: TargetFigures | undefined) => of !== undefined && of.reqPerSec >= GOALS.keptRate;
  const judged = (of: TargetFigures | undefined) =>
    of !== undefined && Math.max(of.coresBusy.gateway ?? 0, of.coresBusy.peers) < QUEUEING_BUSY;
  const goals = {
    riskAddedP99Ms: riskAdded.withJournal?.p99MedianMs,
    // A verdict only where every core involved was under QUEUEING_BUSY: else 'unjudged' (the p99 is a core's queue).
    riskAddedP99MsMet:
      riskAdded.withJournal === undefined
        ? undefined
        : !judged(figures.full) || !judged(figures.riskOff)
          ? 'unjudged'
          : kept(figures.full) && kept(figures.riskOff) && riskAdded.withJournal.p99MedianMs <= GOALS.riskAddedP99Ms,
    riskAddedWithoutJournalP99MsMet:
      riskAdded.withoutJournal === undefined
        ? undefined
        : !judged(figures.journalOff) || !judged(figures.bare)
          ? 'unjudged'
          : kept(figures.journalOff) &&
            kept(figures.bare) &&
            riskAdded.withoutJournal.p99MedianMs <= GOALS.riskAddedP99Ms,
    fullAddedOverDirect: addedOverDirect.full,
    fullAddedMet:
      figures.full === undefined
        ? undefined
        : !judged(figures.full)
          ? 'unjudged'
          : kept(figures.full) &&
            addedOverDirect.full!.p50Ms <= GOALS.addedP50Ms &&
            addedOverDirect.full!.p99MedianMs <= GOALS.addedP99Ms,
    kept1000PerSecond: Object.fromEntries(Object.entries(figures).map(([name, of]) => [name, kept(of)])),
    // At QUEUEING_BUSY or more a core's queue, not the gateway's work, makes the p99 (see the notes).
    busiestCore: Object.fromEntries(
      Object.entries(figures).map(([name, of]) => [name, Math.max(of.coresBusy.gateway ?? 0, of.coresBusy.peers)]),
    ),
  };
  return { ...figures, addedOverDirect, riskAdded, goals };
}

const load1m = () => Number(loadavg()[0].toFixed(2));

export async function orderInsertBench(journal: Journal): Promise<Record<string, unknown>> {
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${GATEWAY_MAIN} is missing: npm run bench builds it`);
  const baseline = process.env.BENCH_ORDERS_BASELINE;
  const baselines = baselinesOf(baseline);
  const only = process.env.BENCH_ORDERS_ONLY?.split(',');
  const configurations: Configuration[] = [
    { name: 'full', risk: true, journal: true, main: GATEWAY_MAIN },
    { name: 'riskOff', risk: false, journal: true, main: GATEWAY_MAIN },
    { name: 'journalOff', risk: true, journal: false, main: GATEWAY_MAIN },
    { name: 'bare', risk: false, journal: false, main: GATEWAY_MAIN },
    ...baselines.flatMap(({ name, main }) => [
      { name: `${name}Full`, risk: true, journal: true, main },
      { name: `${name}Bare`, risk: false, journal: false, main },
    ]),
  ].filter((configuration) => only === undefined || only.includes(configuration.name));
  const dir = mkdtempSync(join(tmpdir(), 'orders-bench-'));
  const stops: (() => Promise<void>)[] = [];
  try {
    const { probed: sandbox, peer } = await startSandboxProcess(dir);
    stops.push(() => sandbox.stop());
    const directUrl = `${peer.urls.exchange}/v1/trading/orders`;
    // The direct side's token, of its own firm's client, from a gateway in this process started for that and closed (it would receive that firm's events).
    const tokenGateway = await startBenchGateway(peer, {
      exchangeClient: 0,
      participant: participantOf(ORDER_FIRMS[0]),
      liftedBuckets: [],
    });
    const authorization = await tokenGateway.app.get(ExchangeTokenProvider).authorization(directUrl);
    await tokenGateway.app.close();
    const targets: GatewayTarget[] = [
      {
        name: 'direct',
        url: directUrl,
        headers: { authorization, 'x-participant-id': participantOf(ORDER_FIRMS[0]) },
        probed: sandbox,
      },
    ];
    // One after another: each runs its schema's migrations at boot.
    for (const [i, configuration] of configurations.entries()) {
      const gateway = await startGatewayProcess(peer, configuration, journal, 1 + i, dir);
      stops.push(gateway.stop);
      targets.push(gateway);
    }
    // Each target answers an order id for one order before anything is measured.
    for (const target of targets) {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: { ...target.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ ...ORDER, clordId: `check-${target.name}` }),
      });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('orderId'))
        throw new Error(`${target.name} answered ${res.status}: ${text.slice(0, 300)}`);
    }
    const inserts = () =>
      sandbox
        .ask<{ value: number }>(
          { counter: 'exchange.calls.insertOrder' },
          (reply) => reply.counter === 'exchange.calls.insertOrder',
        )
        .then((reply) => reply.value);

    const loadAverage: Record<string, number> = { before: load1m() };
    const insertsBefore = await inserts();
    const journalCpuUs = () => (journal.pid === undefined ? undefined : processTreeCpuUs(journal.pid));
    const before = summary(await paced(targets, sandbox, journalCpuUs));
    loadAverage.afterPaced = load1m();
    const saturation: Record<string, LoadReport & { cpuUsPerOrder: number }> = {};
    for (const target of targets) {
      await target.probed.reset();
      const run = await load({
        url: target.url,
        headers: target.headers,
        order: { body: ORDER, clordIdPrefix: `sat-${target.name}` },
        connections: SATURATION_CONNECTIONS,
        durationSeconds: SATURATION_SECONDS,
      });
      const figures = await target.probed.read();
      saturation[target.name] = {
        ...report([run]),
        cpuUsPerOrder: Math.round(figures.cpuUs / Math.max(1, run.timesMs.length + run.failures)),
      };
    }
    loadAverage.afterSaturation = load1m();
    const after = summary(await paced(targets, sandbox, journalCpuUs));
    loadAverage.end = load1m();
    return {
      route: `POST /exchange/v1/trading/orders (gateway processes) vs POST /v1/trading/orders (sandbox process directly, bearer token): a resting GTC buy of 1 at 10¢ on ${ORDER_SYMBOL}, a new clordId each`,
      configurations: {
        direct: 'the sandbox called directly: the floor (its CPU figure is the sandbox process)',
        full: `risk checks on (${RISK_LIMITS.length} limits: firm, team and client-by-market, none reached) and the idempotency record and journal on`,
        riskOff: 'risk.limits empty; idempotency record and journal on',
        journalOff: 'risk checks on; journal.enabled false (no idempotency record, no journal)',
        bare: 'risk.limits empty and journal.enabled false',
        ...Object.fromEntries(
          baselines.flatMap(({ name, main }) => [
            [`${name}Full`, `full, run by ${main}`],
            [`${name}Bare`, `bare, run by ${main}`],
          ]),
        ),
      },
      checksOnInFull: CHECKS_ON_IN_FULL,
      riskLimits: RISK_LIMITS,
      goals: `per phase: the risk checks add at most ${GOALS.riskAddedP99Ms} ms at p99 (issue 26: riskAdded.withJournal, full − riskOff); full adds at most ${GOALS.addedP50Ms} ms at p50 and ${GOALS.addedP99Ms} ms at p99 over the sandbox directly (issue 28); each only "met" when both targets kept ${GOALS.keptRate} of the paced ${RATE} orders/s, and "unjudged" when a core of either was ${QUEUEING_BUSY} busy or more (coresBusy); riskAddedWithoutJournalP99MsMet judges journalOff − bare the same way; every p99 goal is judged on the median of the rounds' p99 (p99MedianMs: a stall of the machine makes one round's), the pooled p99Ms is reported beside it`,
      journalStore: journal.kind,
      processes: PINNED
        ? `each gateway, the sandbox and each load run in a process of its own; gateways on CPU ${SERVER_CPU}, sandbox, load generator and PostgreSQL on CPU ${LOAD_CPU} (taskset)`
        : 'each gateway, the sandbox and each load run in a process of its own; not pinned (fewer than two CPUs or no taskset)',
      rounds: `${ROUNDS} rounds of ${ROUND_SECONDS} s per target, interleaved (every other round in reverse order), at a paced ${RATE} orders/s over ${CONNECTIONS} connections, after ${WARM_UP_SECONDS} s of warm-up each`,
      beforeSaturation: before,
      saturation: { connections: SATURATION_CONNECTIONS, seconds: SATURATION_SECONDS, ...saturation },
      afterSaturation: after,
      sandboxInsertsDuringRun: (await inserts()) - insertsBefore,
      loadAverage1m: loadAverage,
      notes: [
        'Reports only: nothing is asserted. addedOverDirect is each gateway target minus the sandbox directly, same phase.',
        'cpuUsPerOrder is process.cpuUsage of the target process (bench/process-probe.ts, every thread) over its rounds divided by the orders it answered: time spent waiting for a core is not in it, so it is the figure that compares on a shared machine.',
        `roundsStallsMs: each round's p99 beside the longest event-loop stall of the target, the sandbox and the load generator in it (and how late the generator sent its latest order, and the most orders that waited in its pool for a connection: the gateways themselves send upstream over at most http.connectionsPerOrigin, 64, so past 64 in flight a gateway target queues in its own pool where direct has 128); peersQuiet: the median p99 of the rounds in which no peer (load generator; the sandbox, for a gateway) stalled ${PEER_STALL_MS} ms or more, so a peer's stall is not charged to the target while the target's own are (p99PeersQuietMedianMs in addedOverDirect and riskAdded). The goals' verdicts stay on p99MedianMs.`,
        "coresBusy: each core's busy share over the rounds from those CPU figures (the gateway's core: the target; the peers' core: sandbox, load generator and PostgreSQL, whose CPU is read from /proc with its backends). A core near 1 queues, and the p99 measured is then that queue's.",
        'Risk "off" is risk.limits empty (there is no enabled flag). Journal "off" is journal.enabled false: no idempotency claim, no journal append, no answer recorded.',
        'No Redis: the open-order count (maxOpenOrders) uses the in-memory store, and the insert budget decides locally (bucket lifted to 1e9/s).',
        "The sandbox's per-firm order-entry limit is lifted by config; every order rests, none crosses. Each target trades as its own firm.",
      ],
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
    // BENCH_ORDERS_KEEP_DIR=1 keeps the run's directory: each gateway's log (what BENCH_GATEWAY_NODE_FLAGS such as --trace-opt print) and config.
    if (!process.env.BENCH_ORDERS_KEEP_DIR) rmSync(dir, { recursive: true, force: true });
    else console.log(`bench orders: the run's directory is kept: ${dir}`);
  }
}

/**
 * BENCH_ORDERS_BASELINE: other builds' gateways to run `full` and `bare` of in the same rounds, as
 * `name=path` pairs separated by commas (a bare path is named `baseline`), each path another build's
 * dist/apps/gateway/src/main.js.
 */
function baselinesOf(value: string | undefined): { name: string; main: string }[] {
  if (!value) return [];
  return value.split(',').map((part) => {
    const at = part.indexOf('=');
    return at < 0
      ? { name: 'baseline', main: resolve(part) }
      : { name: part.slice(0, at), main: resolve(part.slice(at + 1)) };
  });
}

/** The PostgreSQL server's processes (postmaster and the backends it forks later) on the load CPU. */
export function pinPostgres(pid: number): void {
  if (PINNED) execFileSync('taskset', ['-a', '-p', '-c', LOAD_CPU, String(pid)], { stdio: 'ignore' });
}
