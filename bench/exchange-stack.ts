// What the exchange benches (exchange.bench.ts: book reads, exchange-orders.ts: order inserts) share:
// a gateway in this process in front of the sandbox, the load worker and the latency report.
import { Worker } from 'node:worker_threads';

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateApiKey, hashApiKey } from '@lib/auth';
import { SCOPES } from '@lib/core';

import { createGateway } from '../apps/gateway/src/gateway.factory.js';
import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import type { LoadRun, LoadSpec } from './exchange-load.worker.js';
import { GatewayAppConfigSchema } from '../apps/gateway/src/config/gateway-config.schema.js';

export const ms = (value: number) => Number(value.toFixed(3));

/** One load run in a worker thread (exchange-load.worker.ts). */
export function load(spec: LoadSpec): Promise<LoadRun> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./exchange-load.worker.js', import.meta.url), { workerData: spec });
    worker.once('message', (run: LoadRun) => resolve(run));
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`load worker exited with ${code}`))));
  });
}

export interface LoadReport {
  reqPerSec: number;
  samples: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  failures: number;
}

/** Every 2xx time of the runs pooled: rate, percentiles, failures. */
export function report(runs: LoadRun[]): LoadReport {
  const sorted = Float64Array.from(runs.flatMap((run) => [...run.timesMs])).sort();
  const at = (p: number) =>
    sorted.length === 0 ? Number.NaN : ms(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
  const seconds = runs.reduce((sum, run) => sum + run.elapsedSeconds, 0);
  return {
    reqPerSec: Math.round(sorted.length / seconds),
    samples: sorted.length,
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    p99Ms: at(0.99),
    maxMs: at(1),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  };
}

export interface BenchGateway {
  app: NestFastifyApplication;
  url: string;
  headers: Record<string, string>;
}

export interface BenchGatewayOptions {
  /** Index of the sandbox exchange client (and key) this gateway trades as. */
  exchangeClient: number;
  participant: string;
  /** Budget buckets lifted for the measurement (each request still takes its in-memory decision). */
  liftedBuckets: string[];
  /** Further top-level config sections (risk, journal). */
  config?: Record<string, unknown>;
}

/** What a bench gateway is given of the sandbox: its URLs and exchange keys (a sandbox in this process, or one in its own). */
export type SandboxPeer = Pick<RunningSandbox, 'urls' | 'keys'>;

/** The config (as written, before defaults) of a gateway in front of the sandbox, with one client (every scope) of team `bench` holding `key`. */
export function benchGatewayConfig(
  sandbox: SandboxPeer,
  options: BenchGatewayOptions,
  key: string,
  port: number,
): Record<string, unknown> {
  const exchangeKey = sandbox.keys.exchange[options.exchangeClient];
  return {
    server: { host: '127.0.0.1', port },
    logging: { level: 'info' },
    environment: 'development',
    environments: {
      development: {
        authUrl: sandbox.urls.auth,
        exchangeUrl: sandbox.urls.exchange,
        grpcTarget: sandbox.urls.grpc,
        grpcTls: false,
        retailUrl: sandbox.urls.retail,
        catalogUrl: sandbox.urls.catalog,
        exchangeClient: { clientId: exchangeKey.clientId, privateKeyFile: exchangeKey.privateKeyFile },
      },
    },
    // Published limits would throttle the measurement: lifted, so every request takes a (local,
    // in-memory) budget decision that always allows. Redis is not used.
    limits: {
      buckets: Object.fromEntries(
        options.liftedBuckets.map((bucket) => [bucket, { limit: 1_000_000_000, windowSeconds: 1 }]),
      ),
    },
    inbound: { perClientPerSecond: 10_000_000, perClientBurst: 10_000_000 },
    teams: [{ id: 'bench' }],
    clients: [
      {
        id: 'bench',
        team: 'bench',
        keyHash: hashApiKey(key),
        scopes: [...SCOPES],
        participants: [options.participant],
      },
    ],
    ...options.config,
  };
}

/** A gateway on a free loopback port in front of the sandbox, with one client (every scope) of team `bench`. */
export async function startBenchGateway(sandbox: SandboxPeer, options: BenchGatewayOptions): Promise<BenchGateway> {
  const key = generateApiKey();
  const config = GatewayAppConfigSchema.parse(benchGatewayConfig(sandbox, options, key, 0));
  // Access log lines are formatted as in production and dropped, so their cost is counted.
  const app = await createGateway(config, { logDestination: { write: () => undefined } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${key}` } };
}
