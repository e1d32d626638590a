import type { ChildProcess } from 'node:child_process';

import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { killed } from './support/processes.js';
import { redisCli, startRedisServer } from './support/redis-server.js';
import { StallProxy } from './support/stall-proxy.js';
import { PARTICIPANT, type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, eventually } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// A file of its own: it reads the gateways' log lines, which go to the stacks started last in a file.

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];

const onRedis =
  (redisUrl: string, keyPrefix: string) =>
  (config: GatewayConfigInput): GatewayConfigInput => ({
    ...config,
    redis: { mode: 'single', url: redisUrl, keyPrefix, commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS },
  });

/**
 * Redis back with its data after an outage: a switch the instances fired from their mirrors meanwhile is
 * taken off the due set, so it does not fire a second time from Redis.
 */
describe('a switch fired during an outage, once Redis is back (two gateways behind a proxy that cuts Redis)', () => {
  let redis: { port: number; url: string; process: ChildProcess };
  let proxy: StallProxy;
  let a: Stack;
  let b: Stack;
  const prefix = `brakesback${process.pid}:`;
  const fired = () => [...a.logs, ...b.logs].filter((line) => line.includes("dead-man's switch of bot fired"));

  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await StallProxy.start(redis.port);
    a = await startExchangeStack(CLIENTS, { redis: true, gateway: onRedis(proxy.url, prefix) });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      reuseSandbox: a.sandbox,
      gateway: onRedis(proxy.url, prefix),
    });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await proxy?.close();
    if (redis) await killed(redis.process);
  });

  it('does not fire it again from Redis', async () => {
    const openAtSandbox = () => a.sandbox.state.engine.openOrders(PARTICIPANT).length;
    for (let i = 0; i < 2; i++)
      expect(
        (await post(a, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 2 + i, { clordId: `back-${i}` }), 'bot'))
          .status,
      ).toBe(200);
    expect((await post(a, '/risk/v1/dead-man-switch', { seconds: 4 }, 'bot')).status).toBe(200);
    // Both instances read the due set (every second) before the cut: both fire from their mirrors.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    proxy.cut();
    try {
      await eventually(
        async () => openAtSandbox(),
        (open) => open === 0,
        30_000,
        50,
      );
      await eventually(
        async () => fired().length,
        (count) => count > 0,
        20_000,
        50,
      );
    } finally {
      proxy.restore();
    }
    // Both instances have heard Redis again: two lines at least (one that lost it once more, on a busy machine, says so twice).
    await eventually(
      async () =>
        [...a.logs, ...b.logs].filter((line) => line.includes('Redis answers again; they fire from it')).length,
      (count) => count >= 2,
      30_000,
      50,
    );
    expect((await redisCli(redis.port, 'ZSCORE', `${prefix}{risk}:deadman`, 'bot')).trim()).toBe('');
    // A few polls later, no firing from Redis (the due set no longer holds it): every run was a mirror's
    // during the outage, at most one per instance (the second finds nothing open).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const runs = fired();
    expect(runs.filter((line) => !line.includes("from this instance's mirror"))).toEqual([]);
    expect(runs.length).toBeLessThanOrEqual(2);
  }, 90_000);
});
