// GET /exchange/v1/orderbook/{symbol}?depth=3 through the gateway, against calling the sandbox's
// exchange directly with a valid bearer token and the same depth, in the same run: p50, p99 and req/s
// at a fixed 1,000 req/s and at saturation. Two gateways: one answers from the book its market-data
// stream keeps (the symbol is streamed), one whose exchange client may not stream market data relays
// every read over REST. Servers share the main thread; load comes from a worker.
// Targets: streamed ≥ 1,000 req/s, p99 ≤ 5 ms at 1,000 req/s, zero upstream REST book calls; the REST
// path adds ≤ 1 ms p50 and ≤ 3 ms p99 at 1,000 req/s.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ExchangeTokenProvider } from '@lib/auth';
import { MetricsRegistry } from '@lib/core';
import { Pool } from 'undici';

import { type RunningSandbox, startSandbox } from '../apps/sandbox/src/sandbox.js';
import { startPostgres } from '../test/support/redis-server.js';
import type { LoadRun, LoadSpec } from './exchange-load.worker.js';
import { orderInsertBench, pinPostgres } from './exchange-orders.js';
import { ORDER_FIRMS } from './order-firms.js';
import { type BenchGateway, load, type LoadReport, ms, report, startBenchGateway } from './exchange-stack.js';

const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const DEPTH = 3;
const FIXED_RATE = 1_000;
/** Enough that the paced load never waits for a free connection (see CONNECTIONS in exchange-orders.ts). */
const FIXED_CONNECTIONS = 128;
const SATURATION_CONNECTIONS = 50;
/** Direct and gateway runs alternate in short rounds, so a burst of load from elsewhere on the machine hits both alike. */
const ROUNDS = 4;
const ROUND_SECONDS = 4;
const WARM_UP_SECONDS = 2;

type Target = Pick<LoadSpec, 'url' | 'headers'>;

const SEQUENTIAL_SAMPLES = 2_000;

/** One request at a time on one keep-alive connection: the added latency with no queueing at all. */
async function sequential(target: Target): Promise<{ p50Ms: number; p99Ms: number }> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < 200 + SEQUENTIAL_SAMPLES; i++) {
      const started = process.hrtime.bigint();
      const res = await pool.request({ method: 'GET', path: url.pathname + url.search, headers: target.headers });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`sequential request answered ${res.statusCode}`);
      if (i >= 200) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    await pool.close();
  }
  times.sort((a, b) => a - b);
  return {
    p50Ms: Number(times[Math.floor(times.length / 2)].toFixed(3)),
    p99Ms: Number(times[Math.floor(times.length * 0.99)].toFixed(3)),
  };
}

/** Warm-up of each, then ROUNDS alternating runs of direct and gateway; each side's samples pooled. */
async function compare(
  direct: Target,
  gateway: Target,
  connections: number,
  overallRate?: number,
): Promise<{ direct: LoadReport; gateway: LoadReport }> {
  for (const target of [direct, gateway])
    await load({ ...target, connections, durationSeconds: WARM_UP_SECONDS, overallRate });
  const runs = { direct: [] as LoadRun[], gateway: [] as LoadRun[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.direct.push(await load({ ...direct, connections, durationSeconds: ROUND_SECONDS, overallRate }));
    runs.gateway.push(await load({ ...gateway, connections, durationSeconds: ROUND_SECONDS, overallRate }));
  }
  return { direct: report(runs.direct), gateway: report(runs.gateway) };
}

function startGateway(sandbox: RunningSandbox, exchangeClient: number): Promise<BenchGateway> {
  // The published 12/min book limit would throttle the measurement.
  return startBenchGateway(sandbox, {
    exchangeClient,
    participant: 'firms/BENCH/users/alice',
    liftedBuckets: ['exchange.book'],
  });
}

/** Three levels a side from another firm, so the snapshot is a realistic one of depth 3. */
function fillBook(sandbox: RunningSandbox): void {
  for (let i = 0; i < 3; i++) {
    sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      orderQty: 10 + i,
      price: 50 - i,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: 'firms/MM/users/maker',
    });
    sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 10 + i,
      price: 52 + i,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: 'firms/MM/users/maker',
    });
  }
}

const heapMb = () => Math.round(process.memoryUsage().heapUsed / 2 ** 20);

/** Every exchange scope but read:marketdata: that gateway's stream is refused, so it reads books over REST. */
const REST_ONLY_SCOPES = [
  'read:l2marketdata',
  'read:instruments',
  'read:orders',
  'write:orders',
  'read:reports',
  'read:positions',
  'read:accounts',
] as const;

async function upstreamBookReads(app: NestFastifyApplication): Promise<number> {
  const metric = await app.get(MetricsRegistry).getSingleMetric('gateway_exchange_book_reads_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.source === 'upstream').reduce((sum, v) => sum + v.value, 0);
}

export async function run(): Promise<Record<string, unknown>> {
  Logger.overrideLogger(false);
  const keyDir = mkdtempSync(join(tmpdir(), 'exchange-bench-'));
  const sandbox = await startSandbox({
    ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 },
    keyDir,
    logLevel: 'silent',
    // One token for the whole direct run; the book's 12/min per-firm limit lifted, as on the gateway.
    exchange: {
      tokenTtlSeconds: 3_600,
      limits: { book: 'off', 'order-entry': 'off' },
      clients: [
        { clientId: 'bench', firm: 'BENCH', users: ['alice'] },
        { clientId: 'bench-rest', firm: 'BENCH', users: ['alice'], scopes: [...REST_ONLY_SCOPES] },
        ...ORDER_FIRMS.map((firm) => ({ clientId: firm.toLowerCase(), firm, users: ['alice'] })),
      ],
    },
  });
  const gateway = await startGateway(sandbox, 0);
  const restGateway = await startGateway(sandbox, 1);
  let bookGatewaysClosed: Promise<void> | undefined;
  const closeBookGateways = () => (bookGatewaysClosed ??= gateway.app.close().then(() => restGateway.app.close()));
  try {
    fillBook(sandbox);
    const path = `/v1/orderbook/${SYMBOL}?depth=${DEPTH}`;
    const directUrl = `${sandbox.urls.exchange}${path}`;
    const direct = {
      url: directUrl,
      headers: { authorization: await gateway.app.get(ExchangeTokenProvider).authorization(directUrl) },
    };
    const viaGateway = { url: `${gateway.url}/exchange${path}`, headers: gateway.headers };
    const viaRest = { url: `${restGateway.url}/exchange${path}`, headers: restGateway.headers };
    const answers = await Promise.all(
      [direct, viaGateway, viaRest].map((target) => fetch(target.url, { headers: target.headers })),
    );
    const [directBody, gatewayBody, restBody] = (await Promise.all(answers.map((res) => res.json()))) as {
      bids: unknown[];
      transactTime: string;
    }[];
    const sources = answers.map((res) => res.headers.get('x-book-source'));
    if (answers.some((res) => res.status !== 200) || directBody.bids.length !== DEPTH)
      throw new Error(`warm-up answered ${answers.map((res) => res.status).join('/')}`);
    if (sources[1] !== 'stream' || sources[2] !== 'upstream')
      throw new Error(`book sources ${sources.join('/')}: expected stream and upstream`);

    const upstreamReads = () => upstreamBookReads(gateway.app);
    const before = { sandbox: sandbox.state.counter('exchange.calls.orderBook'), upstream: await upstreamReads() };
    const loadBefore = loadavg()[0];
    const heapAtStartMb = heapMb();
    const sequentialDirect = await sequential(direct);
    const sequentialGateway = await sequential(viaGateway);
    const sequentialRest = await sequential(viaRest);
    const { direct: fixedDirect, gateway: fixedGateway } = await compare(
      direct,
      viaGateway,
      FIXED_CONNECTIONS,
      FIXED_RATE,
    );
    // Both fixed-rate comparisons before saturation, as in the ratelimit bench: run after it, the REST
    // path's added p99 was +8 to +48 ms (before: +4 to +5 ms) and the direct side's stayed at 3-5 ms.
    // The cause is not pinned down (the heap is smaller after saturation than before it: heapUsedMb).
    const { direct: restFixedDirect, gateway: restFixed } = await compare(
      direct,
      viaRest,
      FIXED_CONNECTIONS,
      FIXED_RATE,
    );
    const heapAfterFixedMb = heapMb();
    const { direct: saturatedDirect, gateway: saturatedGateway } = await compare(
      direct,
      viaGateway,
      SATURATION_CONNECTIONS,
    );
    const heapAfterSaturationMb = heapMb();
    const streamedUpstreamCalls = (await upstreamReads()) - before.upstream;
    const sandboxCalls = sandbox.state.counter('exchange.calls.orderBook') - before.sandbox;

    // The order insert path last, after every book figure and with the book gateways closed: its orders rest on the bid side below the levels read at depth 3.
    await closeBookGateways();
    const postgres = await startPostgres();
    let orderInsert: Record<string, unknown>;
    try {
      if (postgres.process.pid !== undefined) pinPostgres(postgres.process.pid);
      orderInsert = await orderInsertBench({
        url: postgres.url,
        appUrl: postgres.appUrl,
        kind: 'PostgreSQL server (test/support startPostgres: loopback, fsync off, synchronous_commit off)',
        pid: postgres.process.pid,
      });
    } finally {
      postgres.process.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));
      rmSync(postgres.dir, { recursive: true, force: true });
    }

    const addedP50Ms = ms(restFixed.p50Ms - restFixedDirect.p50Ms);
    const addedP99Ms = ms(restFixed.p99Ms - restFixedDirect.p99Ms);
    return {
      route: `GET /exchange/v1/orderbook/${SYMBOL}?depth=${DEPTH} (gateway: streamed, and REST path) vs GET ${path} (sandbox, bearer token)`,
      sameBodyShape: [gatewayBody, restBody].every(
        (body) => JSON.stringify(Object.keys(directBody)) === JSON.stringify(Object.keys(body)),
      ),
      rounds: `${ROUNDS} alternating rounds of ${ROUND_SECONDS} s per side and load level, after ${WARM_UP_SECONDS} s of warm-up each`,
      fixedRate: {
        requestsPerSecond: FIXED_RATE,
        connections: FIXED_CONNECTIONS,
        direct: fixedDirect,
        streamed: fixedGateway,
      },
      restPathFixedRate: {
        requestsPerSecond: FIXED_RATE,
        connections: FIXED_CONNECTIONS,
        direct: restFixedDirect,
        gateway: restFixed,
        addedP50Ms,
        addedP99Ms,
      },
      streamedUpstreamBookCalls: streamedUpstreamCalls,
      saturation: {
        connections: SATURATION_CONNECTIONS,
        direct: saturatedDirect,
        streamed: saturatedGateway,
        streamedOverDirectThroughput: Number((saturatedGateway.reqPerSec / saturatedDirect.reqPerSec).toFixed(2)),
      },
      sequential: {
        samples: SEQUENTIAL_SAMPLES,
        direct: sequentialDirect,
        streamed: sequentialGateway,
        restPath: sequentialRest,
        restAddedP50Ms: ms(sequentialRest.p50Ms - sequentialDirect.p50Ms),
        restAddedP99Ms: ms(sequentialRest.p99Ms - sequentialDirect.p99Ms),
      },
      sandboxOrderBookCallsDuringRun: sandboxCalls,
      orderInsert,
      // One process holds the sandbox, both gateways and the pacer's results.
      heapUsedMb: { start: heapAtStartMb, afterFixedRate: heapAfterFixedMb, afterSaturation: heapAfterSaturationMb },
      // The machine is shared (2 cores); its load says how much of each figure is other work queueing ahead of ours.
      loadAverage1m: { before: Number(loadBefore.toFixed(2)), after: Number(loadavg()[0].toFixed(2)) },
      notes: [
        'Latencies are every 2xx response time at full precision (autocannon own histogram counts whole ms).',
        `Fixed rate: an open-loop pacer (undici, ${FIXED_CONNECTIONS} keep-alive connections, so a request never waits in the generator for a free one) sends request i at start + i/rate and times it from then, so queueing behind a slow answer is counted (no coordinated omission). autocannon rate mode is not used: it sends each second of requests back to back at the start of the second.`,
        'Saturation: autocannon, closed loop, 50 connections.',
        'Sandbox and gateway share the main thread of one process on this machine; the load generator runs in a worker thread on the same cores.',
        "The sandbox's per-firm 12/min book limit is lifted by config (exchange.limits.book = 'off').",
        "REST path: the gateway's upstream budget is wired, each request takes one in-memory exchange.book decision (bucket lifted to 1e9/s, no Redis); its exchange client lacks read:marketdata, so the stream is refused and every read is relayed.",
        'Streamed: the first read adds the symbol to the market-data stream; every later read is answered from the kept book (X-Book-Source: stream), counted by gateway_exchange_book_reads_total.',
        'Gateway access log formatted at info level and discarded.',
      ],
      targets: {
        streamedAtLeast1000PerSecond: saturatedGateway.reqPerSec >= 1_000,
        streamedP99AtMost5MsAt1000PerSecond: fixedGateway.p99Ms <= 5,
        streamedZeroUpstreamBookCalls: streamedUpstreamCalls === 0,
        addsAtMost1MsP50At1000PerSecond: addedP50Ms <= 1,
        addsAtMost3MsP99At1000PerSecond: addedP99Ms <= 3,
      },
    };
  } finally {
    await closeBookGateways();
    await sandbox.close();
    rmSync(keyDir, { recursive: true, force: true });
  }
}
