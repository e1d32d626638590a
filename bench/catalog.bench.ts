// Catalog cache, measured end to end on one machine: cache-hit throughput and p99 of the gateway
// (API key checked on every request) against a bare Fastify route sending the same bytes and against
// nginx with proxy_cache in front of the sandbox catalog (same bytes, key checked too), and the p50 a
// miss adds over calling the sandbox catalog directly. The servers run on one core (this process and
// nginx pinned with taskset), the load generator (wrk, 50 connections, 8 s rounds) on the other, in
// three alternating rounds. Targets (issue 28): hits ≥ 0.8× nginx and ≥ 0.9× bare Fastify in every
// round, p99 no worse than nginx's. In-memory mode (no Redis): hits never leave the in-process LRU.
// Without wrk the load is autocannon's (in its own process); without nginx the result says so.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateApiKey, hashApiKey } from '@lib/auth';
import { SCOPES } from '@lib/core';
import Fastify from 'fastify';
import { Pool } from 'undici';

import { createGateway } from '../apps/gateway/src/gateway.factory.js';
import { type RunningSandbox, startSandbox } from '../apps/sandbox/src/sandbox.js';
import { type RunningNginx, findNginx, startNginx } from './catalog-nginx.js';
import { GatewayAppConfigSchema } from '../apps/gateway/src/config/gateway-config.schema.js';

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
/** autocannon's command line, run as its own process: the load generator shares the cores, not the server's heap and GC. */
const execFileAsync = promisify(execFile);
export const AUTOCANNON_CLI = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/** Each contestant runs ROUNDS times, alternating with the others, so a burst of load from elsewhere on the machine hits all alike. */
const ROUNDS = 3;
const ROUND_SECONDS = 8;
const WARM_UP_SECONDS = 3;
const CONNECTIONS = 50;
const MISS_SAMPLES = 2_000;
const WARM_UP = 200;
/** The servers' core and the load generator's, when there are two or more. */
const SERVER_CPU = '0';
const LOAD_CPU = '1';
/** Small and large hit bodies: throughput on a big body is bounded by copying bytes, whatever the gateway does. */
const HIT_ROUTES = { sports: '/v1/sports', events5: '/v1/events?limit=5' } as const;
/** Each request names other provider ids, so each is a miss; the upstream work stays the same tiny lookup. */
const missPath = (i: number) => `/v1/sports/teams/provider?teamIds=${900_000 + i}`;

export interface Gateway {
  app: NestFastifyApplication;
  url: string;
  headers: Record<string, string>;
  /** Closes the gateway and removes its journal directory. */
  close(): Promise<void>;
}

export async function startGateway(sandbox: RunningSandbox, logLevel: 'info' | 'warn'): Promise<Gateway> {
  const key = generateApiKey();
  const journalDir = mkdtempSync(join(tmpdir(), 'catalog-bench-journal-'));
  const config = GatewayAppConfigSchema.parse({
    server: { host: '127.0.0.1', port: 0 },
    logging: { level: logLevel },
    environment: 'development',
    environments: {
      development: {
        authUrl: sandbox.urls.auth,
        exchangeUrl: sandbox.urls.exchange,
        grpcTarget: sandbox.urls.grpc,
        grpcTls: false,
        retailUrl: sandbox.urls.retail,
        catalogUrl: sandbox.urls.catalog,
      },
    },
    catalog: { ttlSeconds: { sports: 3_600, events: 3_600 } },
    // The public budget (20/s) would throttle the miss measurement; the bench measures the gateway, not the budget.
    limits: { buckets: { 'catalog.public': { limit: 1_000_000 } } },
    inbound: { perClientPerSecond: 10_000_000, perClientBurst: 10_000_000 },
    teams: [{ id: 'bench' }],
    clients: [{ id: 'bench', team: 'bench', keyHash: hashApiKey(key), scopes: [...SCOPES] }],
    // Not on the catalog path, but opened at start: each bench gateway gets its own embedded directory
    // (the default, .dev/journal, would be opened by every bench process at once).
    // The resolver of UNKNOWN orders queries the embedded journal on a timer (several PGlite queries a pass): at its
    // slowest, so that work, not the catalog's, does not fill the instruction bench's window (it grows with the window).
    journal: { enabled: false, embeddedDir: journalDir, resolveSearchesPerMinute: 1 },
  });
  // Log lines are formatted as in production and dropped, so their cost is counted without flooding the output.
  const app = await createGateway(config, { logDestination: { write: () => undefined } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.getHttpServer().address() as { port: number };
  const close = async () => {
    await app.close();
    rmSync(journalDir, { recursive: true, force: true });
  };
  return { app, url: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${key}` }, close };
}

interface LoadFigures {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

/** The program runs at all (wrk --version exits 1). */
const has = (program: string, args: string[]) => spawnSync(program, args, { stdio: 'ignore' }).error === undefined;
const WRK = has('wrk', ['--version']);
const PINNED = cpus().length >= 2 && has('taskset', ['-V']);

/** wrk's latency figures: `1.23ms`, `850.00us`, `1.01s`. */
function wrkMs(text: string, label: string): number {
  const match = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)\\b`).exec(text);
  if (!match) throw new Error(`no ${label} in wrk's output: ${text}`);
  return Number(match[1]) * { us: 0.001, ms: 1, s: 1_000 }[match[2] as 'us' | 'ms' | 's'];
}

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<LoadFigures> {
  const pin = PINNED ? ['taskset', '-c', LOAD_CPU] : [];
  if (WRK) {
    const args = [
      'wrk',
      '-t1',
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      '--latency',
      ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      url,
    ];
    const command = [...pin, ...args];
    const { stdout } = await execFileAsync(command[0], command.slice(1), { maxBuffer: 16 * 1024 * 1024 });
    const rate = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
    if (!rate) throw new Error(`no Requests/sec in wrk's output: ${stdout}`);
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
    const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
    return {
      reqPerSec: Math.round(Number(rate[1])),
      p50Ms: wrkMs(stdout, '50%'),
      p99Ms: wrkMs(stdout, '99%'),
      failures: non2xx + errors,
    };
  }
  const args = [
    AUTOCANNON_CLI,
    '--json',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(seconds),
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    url,
  ];
  const command = [...pin, process.execPath, ...args];
  const { stdout } = await execFileAsync(command[0], command.slice(1), { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as AutocannonResult;
  return {
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors,
  };
}

interface Side {
  url: string;
  headers?: Record<string, string>;
}

/** A warm-up round, then ROUNDS rounds in which every side runs once, in turn: the figures of each round. */
async function alternate<K extends string>(sides: Record<K, Side>): Promise<Record<K, LoadFigures>[]> {
  const names = Object.keys(sides) as K[];
  // One unrecorded round first: every side's code paths are compiled hot before anything is counted.
  for (const name of names) await load(sides[name].url, sides[name].headers ?? {}, WARM_UP_SECONDS);
  const rounds: Record<K, LoadFigures>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const figures = {} as Record<K, LoadFigures>;
    for (const name of names) figures[name] = await load(sides[name].url, sides[name].headers ?? {}, ROUND_SECONDS);
    rounds.push(figures);
  }
  return rounds;
}

/** A bare Fastify route answering with exactly the bytes and content type the gateway sends. */
export async function bareFastify(body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify();
  app.get('/', (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').send(body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, close: () => app.close() };
}

/** Sequential GETs on one keep-alive connection; latency percentiles in microseconds. */
async function sequentialLatency(
  origin: string,
  path: (i: number) => string,
  headers: Record<string, string>,
  samples: number,
): Promise<{ p50Us: number; p99Us: number; failures: number }> {
  const pool = new Pool(origin, { connections: 1 });
  const times: number[] = [];
  let failures = 0;
  try {
    for (let i = 0; i < WARM_UP + samples; i++) {
      const started = process.hrtime.bigint();
      const res = await pool.request({ method: 'GET', path: path(i), headers });
      await res.body.text();
      if (res.statusCode !== 200) failures++;
      if (i >= WARM_UP) times.push(Number(process.hrtime.bigint() - started) / 1_000);
    }
  } finally {
    await pool.close();
  }
  times.sort((a, b) => a - b);
  return {
    p50Us: Math.round(times[Math.floor(times.length / 2)]),
    p99Us: Math.round(times[Math.floor(times.length * 0.99)]),
    failures,
  };
}

interface Round {
  bareFastify: LoadFigures;
  gatewayHit: LoadFigures;
  nginxProxyCache?: LoadFigures;
  gatewayOverNginx?: number;
  gatewayOverBare: number;
}

const ratio = (a: number, b: number) => Number((a / b).toFixed(2));

/** The three contestants on one route, round by round, with the gateway's ratios to each baseline. */
async function hitComparison(gateway: Gateway, nginx: string | undefined, path: string) {
  const warm = await fetch(`${gateway.url}/catalog${path}`, { headers: gateway.headers });
  const body = await warm.text();
  if (warm.status !== 200) throw new Error(`warm-up of ${path} answered ${warm.status}`);
  const bare = await bareFastify(body);
  try {
    const sides: Record<string, Side> = {
      bareFastify: { url: bare.url },
      gatewayHit: { url: `${gateway.url}/catalog${path}`, headers: gateway.headers },
    };
    if (nginx !== undefined) {
      const cached = await fetch(`${nginx}${path}`, { headers: gateway.headers });
      if ((await cached.text()) !== body) throw new Error(`nginx's ${path} is not the gateway's bytes`);
      sides.nginxProxyCache = { url: `${nginx}${path}`, headers: gateway.headers };
    }
    const rounds = (await alternate(sides)).map((round): Round => ({
      bareFastify: round.bareFastify,
      gatewayHit: round.gatewayHit,
      ...(round.nginxProxyCache
        ? {
            nginxProxyCache: round.nginxProxyCache,
            gatewayOverNginx: ratio(round.gatewayHit.reqPerSec, round.nginxProxyCache.reqPerSec),
          }
        : {}),
      gatewayOverBare: ratio(round.gatewayHit.reqPerSec, round.bareFastify.reqPerSec),
    }));
    return { bodyBytes: Buffer.byteLength(body), sameBytes: true, rounds };
  } finally {
    await bare.close();
  }
}

/** This process (sandbox, gateway, bare Fastify; every thread) on the servers' core; the previous mask to restore. */
function pinSelf(): string | undefined {
  if (!PINNED) return undefined;
  const previous = /affinity list: (\S+)/.exec(
    execFileSync('taskset', ['-a', '-p', '-c', SERVER_CPU, String(process.pid)], { encoding: 'utf8' }),
  )?.[1];
  return previous;
}

export async function run(): Promise<Record<string, unknown>> {
  Logger.overrideLogger(false);
  const keyDir = mkdtempSync(join(tmpdir(), 'catalog-bench-'));
  const sandbox = await startSandbox({
    ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 },
    keyDir,
    logLevel: 'silent',
    catalog: { requestsPerSecondPerAddress: 'off' },
  });
  const gateway = await startGateway(sandbox, 'info');
  const nginxBinary = findNginx();
  let nginx: RunningNginx | undefined;
  let previousCpus: string | undefined;
  try {
    // Every thread the servers run on exists by now (taskset -a); nginx is started on the same core.
    previousCpus = pinSelf();
    if (nginxBinary !== undefined)
      nginx = await startNginx(
        nginxBinary,
        sandbox.urls.catalog,
        gateway.headers.authorization,
        PINNED ? SERVER_CPU : undefined,
      );
    const sports = await hitComparison(gateway, nginx?.url, HIT_ROUTES.sports);
    const events5 = await hitComparison(gateway, nginx?.url, HIT_ROUTES.events5);
    const before = sandbox.state.counter('catalog.teams');
    const direct = await sequentialLatency(sandbox.urls.catalog, missPath, {}, MISS_SAMPLES);
    const miss = await sequentialLatency(
      gateway.url,
      (i) => `/catalog${missPath(i + WARM_UP + MISS_SAMPLES)}`,
      gateway.headers,
      MISS_SAMPLES,
    );
    const hit = await sequentialLatency(
      gateway.url,
      () => `/catalog${HIT_ROUTES.sports}`,
      gateway.headers,
      MISS_SAMPLES,
    );
    // The sandbox counts the direct calls and the gateway's upstream calls alike.
    const upstreamCalls = sandbox.state.counter('catalog.teams') - before;
    const addedUs = miss.p50Us - direct.p50Us;
    const every = (check: (round: Round) => boolean) => [...sports.rounds, ...events5.rounds].every(check);
    return {
      load: `${WRK ? 'wrk, one thread' : 'autocannon (wrk is not installed: apt-get install wrk)'}, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s per contestant after an unrecorded ${WARM_UP_SECONDS} s round`,
      pinning: PINNED
        ? `servers (this process: sandbox, gateway, bare Fastify; and nginx) on CPU ${SERVER_CPU}, the load generator on CPU ${LOAD_CPU} (taskset)`
        : 'none (fewer than two CPUs or no taskset)',
      nginx:
        nginxBinary === undefined
          ? 'not installed (Debian: apt-get install nginx-light): measured without it'
          : `${nginxBinary}, proxy_cache in front of the sandbox catalog, one process, Authorization checked, access log buffered`,
      logging: 'gateway: info (access line formatted, then discarded)',
      hits: { sports, events5 },
      miss: {
        route: '/v1/sports/teams/provider?teamIds=<distinct per request>',
        samples: MISS_SAMPLES,
        directSandboxP50Us: direct.p50Us,
        gatewayMissP50Us: miss.p50Us,
        gatewayMissP99Us: miss.p99Us,
        addedP50Us: addedUs,
        gatewayHitP50Us: hit.p50Us,
        everyGatewayRequestWasAMiss: upstreamCalls === 2 * (WARM_UP + MISS_SAMPLES),
        failures: direct.failures + miss.failures + hit.failures,
      },
      targets: {
        hitsAtLeast90PercentOfBareEveryRound: every((round) => round.gatewayOverBare >= 0.9),
        hitsAtLeast80PercentOfNginxEveryRound:
          nginx === undefined ? 'no nginx' : every((round) => (round.gatewayOverNginx ?? 0) >= 0.8),
        hitP99NoWorseThanNginxEveryRound:
          nginx === undefined
            ? 'no nginx'
            : every((round) => round.gatewayHit.p99Ms <= (round.nginxProxyCache?.p99Ms ?? 0)),
        missAddsAtMost1MsP50: addedUs <= 1_000,
      },
    };
  } finally {
    await nginx?.close();
    await gateway.close();
    await sandbox.close();
    rmSync(keyDir, { recursive: true, force: true });
    if (previousCpus !== undefined)
      execFileSync('taskset', ['-a', '-p', '-c', previousCpus, String(process.pid)], { stdio: 'ignore' });
  }
}
