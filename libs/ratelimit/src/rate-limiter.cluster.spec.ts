import type { ChildProcess } from 'node:child_process';

import type { RedisClient } from '@lib/core';

import { startRedisServer } from '../../../test/support/redis-server.js';
import {
  decidedTake,
  eventually,
  LimiterPool,
  type LimiterOptions,
  slowBucket,
  testRedis,
  uniquePrefix,
} from '../test/limiter.fixture.js';
import { RateLimiter } from './rate-limiter.service.js';

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Several limiters sharing a private redis-server that the tests may flush, stop and restart. */
describe(`${RateLimiter.name} across instances`, () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  const clients: RedisClient[] = [];
  const pool = new LimiterPool();

  beforeEach(async () => {
    server = await startRedisServer();
  });
  afterEach(async () => {
    await pool.stopAll();
    clients.splice(0).forEach((c) => c.disconnect());
    await stopServer(server.process);
  });

  /** A limiter with its own connection, as on another gateway instance. */
  function instance(options: Omit<LimiterOptions, 'redis'>) {
    const redis = testRedis(server.url);
    clients.push(redis);
    return pool.start({ redis, ...options });
  }

  it('keeps working after SCRIPT FLUSH, with the bucket state intact', async () => {
    const { limiter: sut } = await instance({ limits: { buckets: { 'retail.orders.open': slowBucket(3) } } });
    const request = { buckets: ['retail.orders.open'] as const, class: 'read' as const };
    await sut.take(request);
    await clients[0].script('FLUSH');
    expect(await sut.take(request)).toMatchObject({ allowed: true, remaining: 1, mode: 'redis' });
    await clients[0].script('FLUSH');
    await sut.coolDown(['retail.orders.open'], 1);
    expect(await sut.take(request)).toMatchObject({ allowed: false, limitedBy: 'cool-down', mode: 'redis' });
  });

  it('sizes local buckets for the configured fleet when it starts with Redis down: never alone', async () => {
    await stopServer(server.process);
    const { limiter: sut } = await instance({
      keyPrefix: uniquePrefix(),
      limits: { expectedInstances: 3, buckets: { 'retail.orders.get': slowBucket(10) } },
    });
    expect(sut.status()).toMatchObject({ mode: 'local', degraded: true, instances: 3 });
    expect(await sut.take({ buckets: ['retail.orders.get'], class: 'read' })).toMatchObject({
      allowed: false,
      mode: 'local',
      limit: 3,
    });
    server = await startRedisServer(server.port);
  });

  it('counts live instances through their heartbeats', async () => {
    const keyPrefix = uniquePrefix();
    const limits = { heartbeatMs: 50, instanceTtlMs: 500 };
    const { limiter: a } = await instance({ keyPrefix, limits });
    const { limiter: b } = await instance({ keyPrefix, limits });
    expect(b.status().instances).toBe(2);
    expect(await eventually(() => a.status().instances === 2, 2_000)).toBe(true);
    await b.stop();
    expect(await eventually(() => a.status().instances === 1, 2_000)).toBe(true);
  });

  it('stops every instance on a bucket for the cool-down an upstream 429 asked for', async () => {
    const keyPrefix = uniquePrefix();
    const { limiter: a } = await instance({ keyPrefix });
    const { limiter: b } = await instance({ keyPrefix });
    await a.coolDown(['retail.all'], 2);
    const refused = await b.take({ buckets: ['retail.orders.create', 'retail.all'], class: 'write' });
    expect(refused).toMatchObject({ allowed: false, limitedBy: 'cool-down', bucket: 'retail.all', mode: 'redis' });
    expect(refused.retryAfterMs).toBeGreaterThan(1_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(2_000);
    // What this judges is that the cool-down names retail.all only, never the other bucket (decidedTake:
    // asked again through a late answer's refusal).
    const spared = await decidedTake(b, { buckets: ['retail.orders.create'], class: 'write' });
    expect(spared).toMatchObject({ allowed: true });
  });

  it('spares the classes a cool-down does not name (an upstream 429 on a create leaves cancels alone)', async () => {
    const keyPrefix = uniquePrefix();
    const { limiter: a } = await instance({ keyPrefix });
    const { limiter: b } = await instance({ keyPrefix });
    await a.coolDown(['retail.all'], 5, { classes: ['write'] });
    expect(await b.take({ buckets: ['retail.orders.create', 'retail.all'], class: 'write' })).toMatchObject({
      allowed: false,
      limitedBy: 'cool-down',
    });
    expect(await b.take({ buckets: ['retail.orders.cancel', 'retail.all'], class: 'cancel' })).toMatchObject({
      allowed: true,
    });
  });

  it('falls back to local buckets sized for the fleet while Redis is down, then returns by itself', async () => {
    const keyPrefix = uniquePrefix();
    const limits = {
      heartbeatMs: 100,
      probeMs: 200,
      expectedInstances: 2,
      failClosed: ['write' as const],
      buckets: { 'retail.orders.get': slowBucket(10), 'retail.all': slowBucket(100) },
    };
    await instance({ keyPrefix, limits });
    const { limiter: sut, readiness } = await instance({ keyPrefix, limits });
    expect(sut.status()).toEqual({ mode: 'redis', degraded: false, instances: 2 });

    // Before the outage: this instance has spent 2 of its read bucket on Redis.
    const read = { buckets: ['retail.orders.get'] as const, class: 'read' as const };
    expect(await sut.take(read)).toMatchObject({ allowed: true, mode: 'redis' });
    await stopServer(server.process);
    // What the fleet spent in Redis is unknown now, so local cells start spent (not full) and refill
    // at this instance's share of the rate: 5 per 1,000 s here, one token per 200 s.
    const refused = await sut.take(read);
    expect(refused).toMatchObject({
      allowed: false,
      mode: 'local',
      bucket: 'retail.orders.get',
      limit: 5,
      remaining: 0,
    });
    expect(refused.retryAfterMs).toBeGreaterThan(150_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(200_000);
    expect(await sut.take({ buckets: ['retail.all'], class: 'write' })).toMatchObject({
      allowed: false,
      limitedBy: 'unavailable',
    });
    // Cancels are not failed closed: they keep the conservative local rate (here: wait for the refill).
    expect(await sut.take({ buckets: ['retail.all'], class: 'cancel' })).toMatchObject({
      allowed: false,
      mode: 'local',
      limitedBy: 'bucket',
    });
    expect((await readiness.report()).checks.ratelimit).toEqual({
      status: 'degraded',
      details: { mode: 'local', instances: 2 },
    });

    // Redis comes back empty (a restart): the cells this instance uses are re-seeded spent rather
    // than read as full, so the return to Redis hands out no second burst.
    server = await startRedisServer(server.port);
    expect(await eventually(() => sut.status().mode === 'redis', 5_000)).toBe(true);
    expect(await sut.take(read)).toMatchObject({ allowed: false, mode: 'redis', remaining: 0 });
    expect((await readiness.report()).checks.ratelimit.status).toBe('up');
  });

  it('replays to Redis a cool-down decided while Redis was down, so the other instances honour it once it is back', async () => {
    const keyPrefix = uniquePrefix();
    const limits = { heartbeatMs: 100, probeMs: 200, expectedInstances: 2 };
    const { limiter: a } = await instance({ keyPrefix, limits });
    await stopServer(server.process);
    await eventually(() => a.status().degraded, 5_000);
    await a.coolDown(['retail.all'], 30, { classes: ['write'] });
    server = await startRedisServer(server.port);
    expect(await eventually(() => a.status().mode === 'redis', 5_000)).toBe(true);
    const { limiter: b } = await instance({ keyPrefix, limits });
    const refused = await b.take({ buckets: ['retail.orders.create', 'retail.all'], class: 'write' });
    expect(refused).toMatchObject({ allowed: false, limitedBy: 'cool-down', bucket: 'retail.all', mode: 'redis' });
    expect(refused.retryAfterMs).toBeGreaterThan(20_000);
  });
});
