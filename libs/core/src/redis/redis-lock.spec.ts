import { Redis } from 'ioredis';

import { releaseLock, takeLock } from './redis-lock.js';

describe('the Redis lock (takeLock, releaseLock), on a real Redis', () => {
  let redis: Redis;
  let n = 0;
  let lock: string;
  let mark: { key: string; ms: number };
  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL!, { lazyConnect: false });
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    n += 1;
    lock = `redis-lock-spec:${process.pid}:{${n}}:lock`;
    mark = { key: `redis-lock-spec:${process.pid}:{${n}}:mark`, ms: 60_000 };
  });

  it('one owner at a time; only the owner frees it', async () => {
    expect(await takeLock(redis, lock, 'a', 10_000)).toBe('');
    expect(await takeLock(redis, lock, 'b', 10_000)).toBeUndefined();
    await releaseLock(redis, lock, 'b');
    expect(await redis.get(lock)).toBe('a');
    await releaseLock(redis, lock, 'a');
    expect(await redis.exists(lock)).toBe(0);
    expect(await takeLock(redis, lock, 'b', 10_000)).toBe('');
  });

  it("a release stamps the mark, and the next take reads it in the same call; a stranger's release stamps it too", async () => {
    expect(await takeLock(redis, lock, 'a', 10_000, mark)).toBe('');
    await releaseLock(redis, lock, 'a', mark);
    expect(await takeLock(redis, lock, 'b', 10_000, mark)).toBe('a');
    // A release by a token that no longer holds the lock (its lock lapsed): b's lock stays, the mark moves on.
    await releaseLock(redis, lock, 'a2', mark);
    expect(await redis.get(lock)).toBe('b');
    expect(await redis.pttl(mark.key)).toBeGreaterThan(0);
    await releaseLock(redis, lock, 'b', mark);
    expect(await takeLock(redis, lock, 'c', 10_000, mark)).toBe('b');
  });

  it("a stopped owner's lock lapses after its time", async () => {
    expect(await takeLock(redis, lock, 'a', 30)).toBe('');
    expect(await redis.pttl(lock)).toBeLessThanOrEqual(30);
    while (await redis.exists(lock)) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await takeLock(redis, lock, 'b', 10_000)).toBe('');
  });
});
