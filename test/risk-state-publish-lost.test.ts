import { Redis } from 'ioredis';

import { limit, post } from './support/exchange-stack.js';
import { killed } from './support/processes.js';
import { startRedisServer } from './support/redis-server.js';
import { type Stack, api, json, startStack } from './support/stack.js';

// A trading state is written to Redis, then pushed to every instance (PUBLISH). A push that failed after
// the write answered 503 "nothing changed" though the state was latched (and in force everywhere at the
// next re-read): an operator told a halt failed would try again, or think the firm still trading. The
// push is best effort (a lost one heals at each instance's re-read); the answer is the write's. Here
// Redis refuses PUBLISH to the gateway's user (an ACL), so every push fails and every write succeeds.

describe('a trading state whose push to the other instances fails', () => {
  let stack: Stack;
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  beforeAll(async () => {
    redis = await startRedisServer();
    const admin = new Redis(redis.url);
    await admin.call('ACL', 'SETUSER', 'gw', 'on', '>gw-password', '~*', '&*', '+@all', '-publish');
    await admin.quit();
    stack = await startStack({
      redis: true,
      gateway: (config) => ({
        ...config,
        redis: { ...config.redis!, url: `redis://gw:gw-password@127.0.0.1:${redis.port}` },
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    if (redis) await killed(redis.process);
  });

  it('is answered as latched (it is), and is in force', async () => {
    const halt = await post(stack, '/admin/risk/states', { scope: 'firm', state: 'halted', reason: 'push lost' });
    expect(halt.status).toBe(200);
    expect((await json(halt)).change).toMatchObject({ scope: 'firm', from: 'active', state: 'halted' });
    const view = await json(await api(stack)('/admin/risk'));
    expect(view.states).toEqual([expect.objectContaining({ scope: 'firm', state: 'halted' })]);
    const order = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10));
    expect(order.status).toBe(403);
    expect((await json(order)).code).toBe('TRADING_HALTED');

    const lift = await post(stack, '/admin/risk/states', { scope: 'firm', state: 'active', reason: 'push lost' });
    expect(lift.status).toBe(200);
    expect((await json(await api(stack)('/admin/risk'))).states).toEqual([]);
  });
});
