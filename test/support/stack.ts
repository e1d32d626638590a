import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateApiKey, hashApiKey } from '@lib/auth';
import { SCOPES, type Scope } from '@lib/core';

import {
  GatewayAppConfigSchema,
  type GatewayConfig,
  type GatewayConfigInput,
} from '../../apps/gateway/src/config/gateway-config.schema.js';
import { type GatewayOptions, createGateway } from '../../apps/gateway/src/gateway.factory.js';
import type { SandboxConfigInput } from '../../apps/sandbox/src/config/sandbox-config.schema.js';
import { type RunningSandbox, startSandbox } from '../../apps/sandbox/src/sandbox.js';

export interface TestClient {
  id: string;
  team?: string;
  scopes: Scope[];
  participants?: string[];
  retailAccounts?: string[];
}

export interface StackOptions {
  /** Use the run's real redis-server (jest global setup); default: in-memory single-instance mode. */
  redis?: boolean;
  clients?: TestClient[];
  sandbox?: Partial<SandboxConfigInput>;
  /** Point this gateway at an already running sandbox (a second instance); close() leaves it running. */
  reuseSandbox?: RunningSandbox;
  /** Redis key prefix, so several gateways share one cluster state; default: unique per stack. */
  redisKeyPrefix?: string;
  /** Last word on the gateway config before validation. */
  gateway?: (config: GatewayConfigInput) => GatewayConfigInput;
  /** More Nest modules mounted in the gateway (AppModuleOptions.modules). */
  modules?: GatewayOptions['modules'];
}

export interface Stack {
  sandbox: RunningSandbox;
  gateway: NestFastifyApplication;
  config: GatewayConfig;
  /** The config as written (before defaults), e.g. to start more gateway processes on the same sandbox. */
  configInput: GatewayConfigInput;
  url: string;
  /** Plain API keys by client id; `all` has every scope. */
  keys: Record<string, string>;
  /** Every log line the gateway wrote. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * Production keeps Redis commands to 50 ms so a slow Redis degrades the gateway; tests share two
 * busy cores, where a 50 ms stall is ordinary, so they allow 500 ms unless they test a slow Redis or
 * a starved CPU (those keep the production default: `productionRedisTimeout` in fleet.ts).
 */
export const TEST_REDIS_COMMAND_TIMEOUT_MS = 500;

/** The tests' Redis allowances, with the budget answers as late as the command timeout lets them be (limits.maxDecisionAgeMs). */
export function testRedisLimits(limits: GatewayConfigInput['limits'] = {}): GatewayConfigInput['limits'] {
  return { ...limits, maxDecisionAgeMs: TEST_REDIS_COMMAND_TIMEOUT_MS };
}

export const FIRM = 'TESTFIRM';
/** The sandbox's key ids (its retail accounts) behind the gateway's `main` and `hedge` retail accounts. */
export const RETAIL_KEYS = {
  main: '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d',
  hedge: '8a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
} as const;
/**
 * The config with a retail account `ghost` added whose key id the venue does not know (it is refused):
 * its private channels never deliver, so the gateway never knows its position.
 */
export function withGhostAccount(config: GatewayConfigInput): GatewayConfigInput {
  const development = config.environments!.development!;
  const ghost = { ...development.retailAccounts![0]!, name: 'ghost', keyId: '0b7e4c1a-2f3d-4e5a-8b9c-1d2e3f4a5b6c' };
  return {
    ...config,
    environments: { development: { ...development, retailAccounts: [...development.retailAccounts!, ghost] } },
  };
}

/** A retail market of the sandbox's fixture, and a resting bid on it (`price` a dollar string such as '0.11'). */
export const RETAIL_MARKET = 'aec-nfl-gb-chi-2026-11-22';
export const retailBid = (price: string) => ({
  marketSlug: RETAIL_MARKET,
  intent: 'ORDER_INTENT_BUY_LONG',
  price: { value: price, currency: 'USD' },
  quantity: 1,
});
export const PARTICIPANT = `firms/${FIRM}/users/alice`;
export const OTHER_PARTICIPANT = `firms/${FIRM}/users/bob`;
/**
 * A client of team `trading` on PARTICIPANT, which the `all` client (team `platform`) uses too: the gateway
 * sends a clordId once a key lifetime for a team, so an earlier order under a clordId the `all` client
 * sends again comes from here (another team's order on the same participant).
 */
export const OTHER_TEAM_TRADER: TestClient = {
  id: 'other-team',
  team: 'trading',
  scopes: ['write:orders', 'read:orders'],
  participants: [PARTICIPANT],
};

/** Boots the sandbox and a gateway in-process on ephemeral ports, wired to each other. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const keyDir = mkdtempSync(join(tmpdir(), 'gateway-test-keys-'));
  const sandbox =
    options.reuseSandbox ??
    (await startSandbox({
      ports: { auth: 0, exchange: 0, grpc: 0, retail: 0, catalog: 0 },
      keyDir,
      logLevel: 'silent',
      ...options.sandbox,
      exchange: {
        clients: [{ clientId: 'gateway-test', firm: FIRM, users: ['alice', 'bob'] }],
        ...options.sandbox?.exchange,
      },
      retail: {
        keys: [
          { name: 'main', keyId: RETAIL_KEYS.main },
          { name: 'hedge', keyId: RETAIL_KEYS.hedge },
        ],
        ...options.sandbox?.retail,
      },
    }));

  const keys: Record<string, string> = {};
  const clients = [{ id: 'all', scopes: [...SCOPES] }, ...(options.clients ?? [])].map((client) => {
    keys[client.id] = generateApiKey();
    return {
      id: client.id,
      team: client.team ?? 'platform',
      keyHash: hashApiKey(keys[client.id]),
      scopes: client.scopes,
      participants: client.participants ?? [PARTICIPANT, OTHER_PARTICIPANT],
      retailAccounts: client.retailAccounts ?? ['main', 'hedge'],
    };
  });

  // The run's log scan (global teardown) looks for each of these keys in every captured log line.
  if (process.env.TEST_LOG_DIR)
    appendFileSync(
      join(process.env.TEST_LOG_DIR, `worker-${process.pid}.keys`),
      Object.values(keys)
        .map((key) => `${key}\n`)
        .join(''),
    );

  const exchangeKey = sandbox.keys.exchange[0];
  let input: GatewayConfigInput = {
    // Keep-alive 60 s, not the production 5 s: a test's client and an in-process gateway share one event
    // loop, and after a stall of 5 s on a busy machine the server's idle timer ran before the client's
    // next request on the reused socket was written: the request failed ECONNRESET (ci52).
    server: { host: '127.0.0.1', port: 0, shutdownGraceMs: 2_000, keepAliveTimeoutMs: 60_000 },
    logging: { level: 'info' },
    redis: options.redis
      ? {
          mode: 'single',
          url: redisUrl(),
          keyPrefix: options.redisKeyPrefix ?? `t${process.pid}:${Math.random().toString(36).slice(2, 8)}:`,
          commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS,
        }
      : undefined,
    ...(options.redis ? { limits: testRedisLimits() } : {}),
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
        retailAccounts: sandbox.keys.retail,
      },
    },
    teams: [{ id: 'platform' }, { id: 'trading' }],
    clients,
    journal: testJournal(),
  };
  if (options.gateway) input = options.gateway(input);
  const configInput = input;

  const logs: string[] = [];
  const runLog = process.env.TEST_LOG_DIR ? join(process.env.TEST_LOG_DIR, `worker-${process.pid}.log`) : undefined;
  const write = (line: string) => {
    logs.push(line);
    if (runLog) appendFileSync(runLog, line);
  };
  let gateway: NestFastifyApplication;
  let config: GatewayConfig;
  try {
    // Inside the try: a config the schema refuses must not leave the sandbox running either.
    config = GatewayAppConfigSchema.parse(input);
    gateway = await createGateway(config, { logDestination: { write }, modules: options.modules });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    if (!options.reuseSandbox) await sandbox.close();
    rmSync(keyDir, { recursive: true, force: true });
    throw error;
  }
  const { port } = gateway.getHttpServer().address() as { port: number };

  return {
    sandbox,
    gateway,
    config,
    configInput,
    url: `http://127.0.0.1:${port}`,
    keys,
    logs,
    close: async () => {
      await gateway.close();
      if (!options.reuseSandbox) await sandbox.close();
      rmSync(keyDir, { recursive: true, force: true });
    },
  };
}

/**
 * The order journal of a test stack: the run's PostgreSQL (jest global setup) as the application role,
 * migrated by the superuser, in a schema of its own so each stack's chain starts at its first record.
 */
export function testJournal(
  schema = `j_${process.pid}_${Math.random().toString(36).slice(2, 8)}`,
): GatewayConfigInput['journal'] {
  const url = process.env.TEST_PG_APP_URL;
  const migrationUrl = process.env.TEST_PG_URL;
  if (!url || !migrationUrl)
    throw new Error('TEST_PG_URL is not set: run the tests through jest (its global setup starts PostgreSQL)');
  return { url, migrationUrl, schema, poolSize: 4 };
}

/**
 * A journal (`testJournal`) reached through a proxy on `port` (a StallProxy in front of the run's
 * PostgreSQL), with `statementTimeoutMs` and any other setting from `settings`.
 */
export function journalThrough(
  port: number,
  settings: Partial<NonNullable<GatewayConfigInput['journal']>> & { statementTimeoutMs: number },
): GatewayConfigInput['journal'] {
  return { ...testJournal(), url: `postgres://pmgw_app@127.0.0.1:${port}/postgres`, ...settings };
}

export function redisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url)
    throw new Error('TEST_REDIS_URL is not set: run the tests through jest (its global setup starts redis-server)');
  return url;
}

/** fetch with the client's key. */
export function api(stack: Stack, clientId = 'all') {
  return (path: string, init: RequestInit = {}) =>
    fetch(stack.url + path, {
      ...init,
      headers: {
        authorization: `Bearer ${stack.keys[clientId]}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
    });
}

/** Response bodies in tests are checked by the assertions that read them, not by static types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type Json = any;
export const json = (res: Response): Promise<Json> => res.json() as Promise<Json>;

/**
 * `send` again while the gateway itself refuses it 429 `RATE_LIMITED` (nothing reached the upstream, so
 * a resend is safe), after the Retry-After it gave (at most 1 s), up to `tries` sends. For a test that
 * sets a scene: on a loaded machine a decision that came back late is refused, not queued, and the
 * scene is not what such a test judges. Any other answer is returned as it came.
 */
export async function pastGatewayRefusals(send: () => Promise<Response>, tries = 8): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status !== 429 || attempt >= tries) return res;
    const text = await res.text();
    if ((JSON.parse(text) as { code?: string }).code !== 'RATE_LIMITED')
      return new Response(text, { status: res.status, headers: res.headers });
    const seconds = Number(res.headers.get('retry-after') ?? '0');
    await new Promise((r) => setTimeout(r, Math.min(1_000, 1_000 * (Number.isFinite(seconds) ? seconds : 1)) + 20));
  }
}

/** Polls `probe` until it returns a value that `accept` takes, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 5_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
