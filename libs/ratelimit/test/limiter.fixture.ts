import { randomUUID } from 'node:crypto';

import { Clock, createRedisClient, MetricsRegistry, Readiness, type RedisClient } from '@lib/core';

import { CATALOG_BUCKETS } from '@lib/catalog';
import { exchangeBuckets } from '@lib/exchange';
import { RETAIL_BUCKETS } from '@lib/retail';

import {
  GatewayAppConfigSchema,
  type GatewayConfigInput,
} from '../../../apps/gateway/src/config/gateway-config.schema.js';
import type { BucketDeclaration } from '../src/budget/bucket-declaration.js';
import type { Decision } from '../src/budget/decision.js';
import type { TakeRequest } from '../src/budget/take-plan.js';
import { RateLimiter } from '../src/rate-limiter.service.js';

type LimitsInput = NonNullable<GatewayConfigInput['limits']>;
type TeamsInput = NonNullable<GatewayConfigInput['teams']>;

/** The limits and teams sections exactly as the gateway's config schema resolves them, the surfaces' buckets, and the upstream pools' sections (http, bulkheads, clients). */
export function resolveLimits(limits: LimitsInput = {}, teams: TeamsInput = []) {
  const config = GatewayAppConfigSchema.parse({
    environment: 'development',
    environments: {
      development: {
        authUrl: 'http://127.0.0.1:1',
        exchangeUrl: 'http://127.0.0.1:2',
        grpcTarget: '127.0.0.1:3',
        retailUrl: 'http://127.0.0.1:4',
        catalogUrl: 'http://127.0.0.1:5',
      },
    },
    limits,
    teams,
  });
  return {
    limits: config.limits,
    teams: config.teams,
    http: config.http,
    bulkheads: config.bulkheads,
    clients: config.clients,
    buckets: surfaceBuckets(config.limits.exchangeTier),
  };
}

/** The buckets the surface libs declare (as their modules hand them to the limiter at start), at a tier. */
export function surfaceBuckets(tier: Parameters<typeof exchangeBuckets>[0] = 'T1'): BucketDeclaration[] {
  return [...RETAIL_BUCKETS, ...exchangeBuckets(tier), ...CATALOG_BUCKETS];
}

/** Time that moves only when told to. */
export class ManualClock extends Clock {
  constructor(private t = 1_700_000_000_000) {
    super();
  }

  now(): number {
    return this.t;
  }

  advance(ms: number): void {
    this.t += ms;
  }
}

/** The run's redis-server (jest global setup); specs pass `process.env.TEST_REDIS_URL`. */
export function testRedisUrl(fromEnv: string | undefined): string {
  if (!fromEnv) throw new Error('TEST_REDIS_URL is not set: run through jest (its global setup starts redis-server)');
  return fromEnv;
}

/** A client built like the gateway's, with a timeout loose enough for a busy test machine. */
export function testRedis(url: string, commandTimeoutMs = 1_000): RedisClient {
  const client = createRedisClient({ mode: 'single', url, keyPrefix: '', commandTimeoutMs, connectTimeoutMs: 1_000 });
  client.on('error', () => undefined);
  return client;
}

export const silentLogger = { log: () => undefined, warn: () => undefined };

export interface LimiterOptions {
  limits?: LimitsInput;
  teams?: TeamsInput;
  redis: RedisClient | null;
  keyPrefix?: string;
  clock?: Clock;
}

/**
 * A limiter with its own key prefix (so tests never share buckets), metrics registry and readiness. A
 * budget answer may be read as late as a busy test machine reads it (limits.maxDecisionAgeMs 30 s):
 * specs about lateness set their own figure (the production 50 ms refused answers read late on a loaded
 * run, and a spec counting allowed tokens failed on them).
 */
export function newLimiter(options: LimiterOptions) {
  const { limits, teams, buckets } = resolveLimits({ maxDecisionAgeMs: 30_000, ...options.limits }, options.teams);
  const readiness = new Readiness();
  const metrics = new MetricsRegistry();
  const limiter = new RateLimiter({
    limits,
    teams,
    buckets,
    redis: options.redis,
    keyPrefix: options.keyPrefix ?? uniquePrefix(),
    metrics,
    readiness,
    clock: options.clock,
    logger: silentLogger,
  });
  return { limiter, readiness, metrics };
}

/** Limiters a test started, stopped together afterwards. */
export class LimiterPool {
  private readonly limiters: RateLimiter[] = [];

  async start(options: LimiterOptions) {
    const made = newLimiter(options);
    await made.limiter.start();
    this.limiters.push(made.limiter);
    return made;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.limiters.splice(0).map((l) => l.stop()));
  }
}

export function uniquePrefix(): string {
  return `t-${randomUUID().slice(0, 12)}:`;
}

/** Limits where refill is negligible during a test: `limit` per 1,000 s, no margin. */
export function slowBucket(limit: number) {
  return { limit, windowSeconds: 1_000, safetyMargin: 1 };
}

/** Polls until `check` holds or `timeoutMs` passes; answers whether it held. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return check();
}

/** The keys under `prefix`, by SCAN: KEYS would block the run's shared Redis for every other test while it walks them all. */
export async function keysUnder(redis: RedisClient, prefix: string): Promise<string[]> {
  const match = `${prefix.replace(/[{}[\]*?\\]/g, '\\$&')}*`;
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1_000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

/**
 * A decision, asked again (up to 10 times) while it is refused `unavailable`: on a loaded machine a Redis
 * answer that came back late is refused so and may be asked again at once (ci34, ci42). For specs that
 * judge what the budget decides (a share, a cool-down), never how late Redis answers.
 */
export async function decidedTake(limiter: RateLimiter, request: TakeRequest): Promise<Decision> {
  let decision = await limiter.take(request);
  for (let tries = 0; !decision.allowed && decision.limitedBy === 'unavailable' && tries < 10; tries++)
    decision = await limiter.take(request);
  return decision;
}
