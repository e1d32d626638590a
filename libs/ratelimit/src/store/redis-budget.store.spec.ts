import type { RedisClient } from '@lib/core';

import { keysUnder, testRedis, testRedisUrl, uniquePrefix } from '../../test/limiter.fixture.js';
import { RedisBudgetStore } from './redis-budget.store.js';
import { BudgetLostError } from './take-batch.js';

/** Against the run's real redis-server. */
describe(RedisBudgetStore.name, () => {
  let redis: RedisClient;
  beforeAll(async () => {
    // What these judge is the store's scripts, not a timeout: a generous one, as the run's Redis is shared and busy.
    redis = testRedis(testRedisUrl(process.env.TEST_REDIS_URL), 10_000);
    // The gateway's client queues nothing while it connects.
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(() => redis.quit());

  it("lists each instance's Redis mode from the heartbeats: fresh is shared, a local one's stale beat is local", async () => {
    const sut = new RedisBudgetStore(redis, uniquePrefix());
    await sut.adopt(0, 60_000);
    await sut.heartbeat('shared-1', 60_000, '{}', 3_000, false);
    await sut.heartbeat('local-1', 60_000, '{}', 3_000, true);
    const members = await sut.members(3_000);
    expect(members.map(({ id, mode }) => ({ id, mode })).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'local-1', mode: 'local' },
      { id: 'shared-1', mode: 'redis' },
    ]);
    expect(members.find((m) => m.id === 'shared-1')?.heardMsAgo).toBeLessThan(3_000);
  });

  it('notices a lost budget (its generation key gone): heartbeats fail until it adopts the new one, which reserves the instances known before', async () => {
    const prefix = uniquePrefix();
    const [a, b] = [new RedisBudgetStore(redis, prefix), new RedisBudgetStore(redis, prefix)];
    expect(await a.adopt(0, 60_000)).toBe(false); // first start: nothing was lost
    expect(await b.adopt(0, 60_000)).toBe(false);
    await a.heartbeat('a', 60_000, '{}', 3_000, false);
    await b.heartbeat('b', 60_000, '{}', 3_000, false);
    await redis.del(...(await keysUnder(redis, a.keys.prefix))); // what FLUSHALL does to this prefix
    await expect(a.heartbeat('a', 60_000, '{}', 3_000, false)).rejects.toBeInstanceOf(BudgetLostError);
    expect(await a.adopt(3, 60_000)).toBe(true);
    // Only a is back, but three were known: a may spend a third of each bucket until the others announce themselves.
    expect(await a.heartbeat('a', 60_000, '{}', 3_000, false)).toEqual({ known: 3, fresh: 1 });
    expect(await b.adopt(3, 60_000)).toBe(true); // b adopts a's generation: the same event
    expect(await b.heartbeat('b', 60_000, '{}', 3_000, true)).toEqual({ known: 3, fresh: 1 });
  });
});
