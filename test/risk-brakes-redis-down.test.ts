import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'ws';

import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { killed } from './support/processes.js';
import { redisCli, startRedisServer } from './support/redis-server.js';
import { PARTICIPANT, type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, eventually } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const PERIOD_S = 2;

const onRedis =
  (redisUrl: string, keyPrefix: string) =>
  (config: GatewayConfigInput): GatewayConfigInput => ({
    ...config,
    redis: { mode: 'single', url: redisUrl, keyPrefix, commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS },
  });

/**
 * The dead-man's switch and cancel-on-disconnect keep their deadlines in Redis. Before, while Redis was
 * out nothing fired them: a bot that died during the outage (or just before it) left its orders resting
 * at the exchange until Redis came back. Now each instance fires them from its mirror of the deadlines,
 * never before the deadline. Each case has a redis-server of its own, which it kills.
 */
describe('brakes while Redis is down (two gateways, a redis-server of their own, killed)', () => {
  let redis: { port: number; url: string; process: ChildProcess };
  let a: Stack;
  let b: Stack;
  const openAtSandbox = () => a.sandbox.state.engine.openOrders(PARTICIPANT).length;

  beforeEach(async () => {
    redis = await startRedisServer(); // its own: each case kills it
    const prefix = `brakesdown${process.pid}:`;
    a = await startExchangeStack(CLIENTS, { redis: true, gateway: onRedis(redis.url, prefix) });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      reuseSandbox: a.sandbox,
      gateway: onRedis(redis.url, prefix),
    });
  }, 60_000);
  afterEach(async () => {
    await b?.close();
    await a?.close();
    if (redis) await killed(redis.process);
  });

  const place = async (stack: Stack, clordId: string, price: number) =>
    expect(
      (await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, price, { clordId }), 'bot')).status,
    ).toBe(200);

  /**
   * Samples the sandbox until nothing is open: every sample taken before `notBefore` (the earliest the
   * brake may fire) must still show `resting` open orders. Resolves with the open count at the end.
   */
  const cancelledNotBefore = async (notBefore: number, resting: number): Promise<number> => {
    const early: number[] = [];
    const open = await eventually(
      async () => {
        const sampledAt = Date.now();
        const count = openAtSandbox();
        if (sampledAt < notBefore && count !== resting) early.push(count);
        return count;
      },
      (count) => count === 0,
      30_000,
      20,
    );
    expect({ cancelledBeforeTheDeadline: early }).toEqual({ cancelledBeforeTheDeadline: [] });
    return open;
  };

  it("fires a dead-man's switch that lapses while Redis is down", async () => {
    for (let i = 0; i < 3; i++) await place(a, `dms-down-${i}`, 2 + i);
    const armedAt = Date.now();
    const armed = await post(a, '/risk/v1/dead-man-switch', { seconds: PERIOD_S }, 'bot');
    expect(armed.status).toBe(200);
    await killed(redis.process); // the bot stops re-arming: it died too
    expect(openAtSandbox()).toBe(3);
    expect(await cancelledNotBefore(armedAt + PERIOD_S * 1_000, 3)).toBe(0);
    // Re-arming while Redis is out is still not guaranteed: 503, "may or may not have changed".
    expect((await post(b, '/risk/v1/dead-man-switch', { seconds: PERIOD_S }, 'bot')).status).toBe(503);
  }, 90_000);

  it('fires a grace that was handed to Redis just before Redis went down', async () => {
    const ws = new WebSocket(`${b.url.replace(/^http/, 'ws')}/ws?cancelOnDisconnect=${PERIOD_S}`, {
      headers: { authorization: `Bearer ${b.keys.bot}` },
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    for (let i = 0; i < 2; i++) await place(b, `cod-down-${i}`, 2 + i);
    const closedAt = Date.now();
    ws.terminate();
    // The holder made the bot due in Redis (its grace runs there, not in the holder's process)...
    await eventually(
      () => redisCli(redis.port, 'ZSCORE', `brakesdown${process.pid}:{risk}:cod-due`, 'bot'),
      (score) => score.trim() !== '',
      10_000,
      20,
    );
    // ...and then Redis died, before the grace ended.
    await killed(redis.process);
    expect(openAtSandbox()).toBe(2);
    expect(await cancelledNotBefore(closedAt + PERIOD_S * 1_000, 2)).toBe(0);
  }, 90_000);
});
