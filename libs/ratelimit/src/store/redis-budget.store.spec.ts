import type { RedisClient } from '@lib/core';

import { testRedis, testRedisUrl, uniquePrefix } from '../../test/limiter.fixture.js';
import { RedisBudgetStore } from './redis-budget.store.js';

/** Against the run's real redis-server. */
describe(RedisBudgetStore.name, () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = testRedis(testRedisUrl(process.env.TEST_REDIS_URL));
    // The gateway's client queues nothing while it connects.
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(() => redis.quit());

  it("lists each instance's Redis mode from the heartbeats: fresh is shared, a local one's stale beat is local", async () => {
    const sut = new RedisBudgetStore(redis, uniquePrefix());
    await sut.heartbeat('shared-1', 60_000, '{}', 3_000, false);
    await sut.heartbeat('local-1', 60_000, '{}', 3_000, true);
    const members = await sut.members(3_000);
    expect(members.map(({ id, mode }) => ({ id, mode })).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'local-1', mode: 'local' },
      { id: 'shared-1', mode: 'redis' },
    ]);
    expect(members.find((m) => m.id === 'shared-1')?.heardMsAgo).toBeLessThan(3_000);
  });
});
