import type { ChildProcess } from 'node:child_process';

import { redisCli, startRedisServer } from './support/redis-server.js';
import { type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, api, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';
import { killed } from './support/processes.js';

const MAX_OPEN = 4;
const SLUG = 'aec-nfl-gb-chi-2026-11-22';
/** The sandbox's key id of the `main` retail account. */
const MAIN_KEY = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';
const CLIENTS = [
  { id: 'app', team: 'trading', scopes: ['write:orders' as const, 'read:orders' as const], retailAccounts: ['main'] },
];
/** What a create may meet once Redis lost the counts: refused while they are rebuilt, or by the rebuilt count. */
const REFUSED = ['SERVICE_UNAVAILABLE', 'RISK_MAX_OPEN_ORDERS'];

const withOpenLimit =
  (redisUrl: string, keyPrefix: string) =>
  (config: GatewayConfigInput): GatewayConfigInput => ({
    ...config,
    redis: { mode: 'single', url: redisUrl, keyPrefix, commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS },
    risk: { limits: [{ scope: 'team', id: 'trading', maxOpenOrders: MAX_OPEN }] },
  });

/** Redis losing its data must not empty the retail counts either: the rebuild reads the retail accounts' open orders too. */
describe('retail open-order counts when Redis loses its data (two gateways, a real Redis)', () => {
  let redis: { port: number; url: string; process: ChildProcess };
  let a: Stack;
  let b: Stack;
  const prefix = `retailloss${process.pid}:`;
  const openAtSandbox = () => a.sandbox.state.engine.openOrders(MAIN_KEY).length;
  const create = (stack: Stack, price: string) =>
    api(stack, 'app')('/retail/v1/orders', {
      method: 'POST',
      body: JSON.stringify({
        marketSlug: SLUG,
        intent: 'ORDER_INTENT_BUY_LONG',
        price: { value: price, currency: 'USD' },
        quantity: 1,
      }),
      headers: { prefer: 'wait=20' },
    });
  const answer = async (res: Response) => ({
    status: res.status,
    code: res.ok ? 'OK' : ((await json(res)).code as string),
  });

  beforeAll(async () => {
    redis = await startRedisServer(); // its own: this file flushes it
    a = await startStack({ clients: CLIENTS, redis: true, gateway: withOpenLimit(redis.url, prefix) });
    b = await startStack({
      clients: CLIENTS,
      redis: true,
      reuseSandbox: a.sandbox,
      gateway: withOpenLimit(redis.url, prefix),
    });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    if (redis) await killed(redis.process);
  });

  it(`${MAX_OPEN} resting retail orders under maxOpenOrders ${MAX_OPEN}, then FLUSHALL: no create passes the limit on either gateway`, async () => {
    for (let i = 0; i < MAX_OPEN; i++)
      expect(await answer(await create(i % 2 ? b : a, `0.0${i + 1}`))).toEqual({ status: 200, code: 'OK' });
    expect(await answer(await create(a, '0.05'))).toMatchObject({ code: 'RISK_MAX_OPEN_ORDERS' });
    expect(openAtSandbox()).toBe(MAX_OPEN);

    expect(await redisCli(redis.port, 'FLUSHALL')).toContain('OK');
    const storm = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => answer(await create(i % 2 ? b : a, '0.06'))),
    );
    process.stdout.write(
      `retail creates after FLUSHALL: ${JSON.stringify(storm)}; open at the sandbox ${openAtSandbox()} (limit ${MAX_OPEN})\n`,
    );
    expect(openAtSandbox()).toBe(MAX_OPEN);
    for (const one of storm) expect(REFUSED).toContain(one.code);
  }, 60_000);
});
