import type { ChildProcess } from 'node:child_process';

import { limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { startRedisServer } from './support/redis-server.js';
import { PARTICIPANT, type Stack, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];

const insert = (stack: Stack, order: object) => post(stack, '/exchange/v1/trading/orders', order, 'bot');
const check = (stack: Stack) => post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 1, 20), 'bot');
const setState = (stack: Stack, state: string, reason: string) =>
  post(stack, '/admin/risk/states', { scope: 'team:trading', state, reason });

describe('an instance that starts while Redis is unreachable enforces a latched halt (fail closed)', () => {
  let redis: { url: string; process: ChildProcess };
  let a: Stack;
  let b: Stack | undefined;
  const prefix = `unknown${process.pid}:`;
  const onOwnRedis = (config: GatewayConfigInput): GatewayConfigInput => ({
    ...config,
    redis: { ...config.redis!, url: redis.url },
  });

  beforeAll(async () => {
    redis = await startRedisServer();
    a = await startExchangeStack(CLIENTS, { redis: true, redisKeyPrefix: prefix, gateway: onOwnRedis });
  });
  afterAll(async () => {
    redis?.process.kill('SIGCONT');
    await b?.close();
    await a?.close();
    redis?.process.kill('SIGKILL');
  });

  it('refuses new orders 503 TRADING_STATE_UNKNOWN until it has read the states, lets cancels pass, then applies the halt, and accepts once it is lifted', async () => {
    const { orderId } = await json(await insert(a, limit('SIDE_BUY', 1, 10, { clordId: 'rests-through-the-outage' })));
    expect((await setState(a, 'halted', 'latched before the new instance starts')).status).toBe(200);

    // Redis stops (the process is frozen: connections hang, nothing is answered); a new instance starts now.
    redis.process.kill('SIGSTOP');
    try {
      b = await startExchangeStack(CLIENTS, {
        redis: true,
        redisKeyPrefix: prefix,
        reuseSandbox: a.sandbox,
        gateway: onOwnRedis,
      });
      const sent = upstreamCalls(a);
      const refused = await insert(b, limit('SIDE_BUY', 1, 11, { clordId: 'while-unknown' }));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await json(refused)).toMatchObject({ code: 'TRADING_STATE_UNKNOWN', lastRead: null });
      expect(upstreamCalls(a)).toBe(sent);
      // A cancel is never blocked by a gateway rule.
      const cancel = await post(b, '/exchange/v1/trading/orders/cancel', { orderId }, 'bot');
      expect({ status: cancel.status, body: cancel.ok ? undefined : await cancel.text() }).toEqual({
        status: 200,
        body: undefined,
      });
      expect(a.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });
    } finally {
      redis.process.kill('SIGCONT');
    }

    // Redis answers again: the instance reads the states and the latched halt is what refuses now.
    const started = performance.now();
    const halted = await eventually(
      () => check(b!),
      (res) => res.status !== 503,
      15_000,
      50,
    );
    console.log(
      `state-unknown: the instance read the latched states ${(performance.now() - started).toFixed(0)} ms after Redis was resumed`,
    );
    expect(halted.status).toBe(403);
    expect(await json(halted)).toMatchObject({ code: 'TRADING_HALTED', scope: 'team:trading', state: 'halted' });
    expect((await json(await insert(b!, limit('SIDE_BUY', 1, 12, { clordId: 'still-halted' })))).code).toBe(
      'TRADING_HALTED',
    );

    expect((await setState(a, 'active', 'outage over')).status).toBe(200);
    expect(
      (
        await eventually(
          () => check(b!),
          (res) => res.status === 200,
          5_000,
        )
      ).status,
    ).toBe(200);
    expect((await insert(b!, limit('SIDE_BUY', 1, 12, { clordId: 'after-lift' }))).status).toBe(200);
  });
});
