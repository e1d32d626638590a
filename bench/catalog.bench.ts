// Catalog cache, measured end to end on one machine (servers on the main thread, autocannon in its
// own process): cache-hit throughput and p99 of the gateway (API key checked on every request)
// against a bare Fastify route sending the same bytes, and the p50 a miss adds over calling the
// sandbox catalog directly. Targets: hits ≥ 0.6× bare Fastify with p99 < 5 ms; a miss adds ≤ 1 ms p50.
// In-memory mode (no Redis): hits never leave the in-process LRU either way.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateApiKey, hashApiKey } from '@lib/auth';
import { GatewayConfigSchema, SCOPES } from '@lib/core';
import Fastify from 'fastify';
import { Pool } from 'undici';

import { createGateway } from '../apps/gateway/src/gateway.factory.js';
import { type RunningSandbox, startSandbox } from '../apps/sandbox/src/sandbox.js';

interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
/** autocannon's command line, run as its own process: the load generator shares the cores, not the server's heap and GC. */
const execFileAsync = promisify(execFile);
export const AUTOCANNON_CLI = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/** Each side runs ROUNDS times, alternating with the others, so a burst of load from elsewhere on the machine hits all alike. */
const ROUNDS = 4;
const ROUND_SECONDS = 4;
const CONNECTIONS = 50;
const MISS_SAMPLES = 2_000;
const WARM_UP = 200;
/** Small and large hit bodies: throughput on a big body is bounded by copying bytes, whatever the gateway does. */
const HIT_ROUTES = { sports: '/v1/sports', events5: '/v1/events?limit=5' } as const;
/** Each request names other provider ids, so each is a miss; the upstream work stays the same tiny lookup. */
const missPath = (i: number) => `/v1/sports/teams/provider?teamIds=${900_000 + i}`;

export interface Gateway {
  app: NestFastifyApplication;
  url: string;
  headers: Record<string, string>;
}

export async function startGateway(sandbox: RunningSandbox, logLevel: 'info' | 'warn'): Promise<Gateway> {
  const key = generateApiKey();
  const config = GatewayConfigSchema.parse({
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
  });
  // Log lines are formatted as in production and dropped, so their cost is counted without flooding the output.
  const app = await createGateway(config, { logDestination: { write: () => undefined } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${key}` } };
}

interface LoadFigures {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

async function load(url: string, headers: Record<string, string> = {}): Promise<LoadFigures> {
  const args = [AUTOCANNON_CLI, '--json', '-c', String(CONNECTIONS), '-d', String(ROUND_SECONDS), ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]), url];
  const { stdout } = await execFileAsync(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as LoadResult;
  return { reqPerSec: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, failures: result.non2xx + result.errors };
}

interface Side {
  url: string;
  headers?: Record<string, string>;
}

/** A warm-up round, then ROUNDS alternating runs of every side; per side the mean req/s, the median p50 and the worst p99 of its rounds (autocannon counts whole ms). */
async function alternate<K extends string>(sides: Record<K, Side>): Promise<Record<K, LoadFigures & { roundsReqPerSec: number[]; roundsP99Ms: number[] }>> {
  const names = Object.keys(sides) as K[];
  const runs = Object.fromEntries(names.map((name) => [name, [] as LoadFigures[]])) as Record<K, LoadFigures[]>;
  // One unrecorded round first: every side's code paths are compiled hot before anything is counted.
  for (const name of names) await load(sides[name].url, sides[name].headers);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) runs[name].push(await load(sides[name].url, sides[name].headers));
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  return Object.fromEntries(
    names.map((name) => {
      const rounds = runs[name];
      const figures = {
        reqPerSec: Math.round(rounds.reduce((sum, run) => sum + run.reqPerSec, 0) / rounds.length),
        p50Ms: median(rounds.map((run) => run.p50Ms)),
        p99Ms: Math.max(...rounds.map((run) => run.p99Ms)),
        failures: rounds.reduce((sum, run) => sum + run.failures, 0),
        roundsReqPerSec: rounds.map((run) => run.reqPerSec),
        roundsP99Ms: rounds.map((run) => run.p99Ms),
      };
      return [name, figures];
    }),
  ) as Record<K, LoadFigures & { roundsReqPerSec: number[]; roundsP99Ms: number[] }>;
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
async function sequentialLatency(origin: string, path: (i: number) => string, headers: Record<string, string>, samples: number): Promise<{ p50Us: number; p99Us: number; failures: number }> {
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
  return { p50Us: Math.round(times[Math.floor(times.length / 2)]), p99Us: Math.round(times[Math.floor(times.length * 0.99)]), failures };
}

async function hitComparison(gateways: { info: Gateway; warn: Gateway }, path: string, withWarn: boolean) {
  const { info, warn } = gateways;
  const warm = await fetch(`${info.url}/catalog${path}`, { headers: info.headers });
  const body = await warm.text();
  if (warm.status !== 200) throw new Error(`warm-up of ${path} answered ${warm.status}`);
  await fetch(`${warn.url}/catalog${path}`, { headers: warn.headers });
  const bare = await bareFastify(body);
  try {
    const gatewayHit = { url: `${info.url}/catalog${path}`, headers: info.headers };
    if (!withWarn) {
      const figures = await alternate({ bareFastify: { url: bare.url }, gatewayHit });
      return { bodyBytes: Buffer.byteLength(body), ...figures, ratio: Number((figures.gatewayHit.reqPerSec / figures.bareFastify.reqPerSec).toFixed(2)) };
    }
    const figures = await alternate({
      bareFastify: { url: bare.url },
      gatewayHit,
      gatewayHitWithoutAccessLog: { url: `${warn.url}/catalog${path}`, headers: warn.headers },
      // The gateway's floor: an authenticated Nest route that does nothing, with the access log on.
      authenticatedNoopRoute: { url: `${info.url}/me`, headers: info.headers },
    });
    const ratio = (side: LoadFigures) => Number((side.reqPerSec / figures.bareFastify.reqPerSec).toFixed(2));
    return { bodyBytes: Buffer.byteLength(body), ...figures, ratio: ratio(figures.gatewayHit), ratioWithoutAccessLog: ratio(figures.gatewayHitWithoutAccessLog) };
  } finally {
    await bare.close();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  Logger.overrideLogger(false);
  const keyDir = mkdtempSync(join(tmpdir(), 'catalog-bench-'));
  const sandbox = await startSandbox({ ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 }, keyDir, logLevel: 'silent', catalog: { requestsPerSecondPerAddress: 'off' } });
  const gateways = { info: await startGateway(sandbox, 'info'), warn: await startGateway(sandbox, 'warn') };
  try {
    const sports = await hitComparison(gateways, HIT_ROUTES.sports, true);
    const events5 = await hitComparison(gateways, HIT_ROUTES.events5, false);
    const { info } = gateways;
    const before = sandbox.state.counter('catalog.teams');
    const direct = await sequentialLatency(sandbox.urls.catalog, missPath, {}, MISS_SAMPLES);
    const miss = await sequentialLatency(info.url, (i) => `/catalog${missPath(i + WARM_UP + MISS_SAMPLES)}`, info.headers, MISS_SAMPLES);
    const hit = await sequentialLatency(info.url, () => `/catalog${HIT_ROUTES.sports}`, info.headers, MISS_SAMPLES);
    // The sandbox counts the direct calls and the gateway's upstream calls alike.
    const upstreamCalls = sandbox.state.counter('catalog.teams') - before;
    const addedUs = miss.p50Us - direct.p50Us;
    return {
      rounds: `${ROUNDS} alternating rounds of ${ROUND_SECONDS} s per side, after one unrecorded warm-up round`,
      connections: CONNECTIONS,
      logging: 'gatewayHit: info (access log formatted, then discarded); gatewayHitWithoutAccessLog: warn',
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
        hitsAtLeast60PercentOfBareFastify: sports.ratio >= 0.6,
        hitP99Under5Ms: sports.gatewayHit.p99Ms < 5,
        missAddsAtMost1MsP50: addedUs <= 1_000,
      },
    };
  } finally {
    await gateways.warn.app.close();
    await gateways.info.app.close();
    await sandbox.close();
    rmSync(keyDir, { recursive: true, force: true });
  }
}
