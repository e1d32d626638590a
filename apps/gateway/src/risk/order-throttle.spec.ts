import { Clock, type RedisClient } from '@lib/core';
import type { RateLimiter } from '@lib/ratelimit';
import { Redis } from 'ioredis';

import { OrderThrottle } from './order-throttle.service.js';
import { RiskLimits } from './risk-limits.js';
import type { RiskLimitsSource } from './risk-limits-source.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

class StillClock extends Clock {
  constructor(public at = 1_000_000) {
    super();
  }
  now(): number {
    return this.at;
  }
}

const RATE = 4;
const source = { current: () => new RiskLimits([{ scope: 'client', id: 'loop', maxOrdersPerSecond: RATE }]) };
const loop = { id: 'loop', team: 'trading' } as Parameters<OrderThrottle['take']>[0];
const config = { redis: { keyPrefix: 'throttle-spec:' } } as GatewayConfig;

/** How many of `calls` calls at one instant the throttle lets through. */
async function passed(sut: OrderThrottle, calls = 10): Promise<number> {
  let taken = 0;
  for (let i = 0; i < calls; i++) {
    taken += await sut.take(loop).then(
      () => 1,
      () => 0,
    );
  }
  return taken;
}

// The Redis path itself is judged through the wire (test/risk-throttle-fleet.test.ts); here, what an
// instance allows alone: while Redis is down, its share of the fleet's rate, never the whole rate.
describe(OrderThrottle.name, () => {
  let unreachable: Redis;
  beforeAll(() => {
    // A real client to a port nothing listens on: every command fails at once.
    unreachable = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  });
  afterAll(() => unreachable.disconnect());

  const throttle = (redis: RedisClient | null, sharing: ReturnType<RateLimiter['sharing']>, clock = new StillClock()) =>
    new OrderThrottle(
      source as unknown as RiskLimitsSource,
      clock,
      { sharing: () => sharing } as RateLimiter,
      redis,
      config,
      'throttle-spec',
    );

  it('without Redis (one instance) allows the whole rate as its burst, then refills at the rate', async () => {
    const clock = new StillClock();
    const sut = throttle(null, { shared: false, localShareOf: 1 }, clock);
    expect(await passed(sut)).toBe(RATE);
    clock.at += 500;
    expect(await passed(sut)).toBe(RATE / 2);
  });

  it('while the budget sees Redis down, allows the rate divided by the fleet it is sized for', async () => {
    expect(await passed(throttle(unreachable, { shared: false, localShareOf: 2 }))).toBe(RATE / 2);
  });

  it('when a call to Redis fails, counts locally at its share, never the whole rate', async () => {
    expect(await passed(throttle(unreachable, { shared: true, localShareOf: 4 }))).toBe(RATE / 4);
  });

  it('refuses RISK_THROTTLED with Retry-After and the limit that set it', async () => {
    const sut = throttle(null, { shared: false, localShareOf: 1 });
    await passed(sut, RATE);
    await expect(sut.take(loop)).rejects.toMatchObject({
      code: 'RISK_THROTTLED',
      headers: { 'Retry-After': '1' },
      extensions: { limit: RATE, scope: 'client:loop' },
    });
  });

  // A rate the schema now refuses (under one call an hour) may still be in force: latched by an admin
  // before the floor, it is read back from Redis unchecked. Its Retry-After stays a whole number of seconds.
  it.each([5e-324, 1e-300])(
    'a rate of %s latched before the floor answers Retry-After 3600, not Infinity',
    async (rate) => {
      const sut = new OrderThrottle(
        { current: () => new RiskLimits([{ scope: 'client', id: 'loop', maxOrdersPerSecond: rate }]) } as never,
        new StillClock(),
        { sharing: () => ({ shared: false, localShareOf: 1 }) } as RateLimiter,
        null,
        config,
        'throttle-spec',
      );
      await sut.take(loop);
      await expect(sut.take(loop)).rejects.toMatchObject({ headers: { 'Retry-After': '3600' } });
    },
  );

  describe('on a real Redis (the shared path)', () => {
    let redis: Redis;
    beforeAll(() => {
      redis = new Redis(process.env.TEST_REDIS_URL!, { lazyConnect: false });
    });
    afterAll(() => redis.disconnect());

    let instances = 0;
    const onRedis = (rate: number, prefix: string, clock = new StillClock()) =>
      new OrderThrottle(
        { current: () => new RiskLimits([{ scope: 'client', id: 'loop', maxOrdersPerSecond: rate }]) } as never,
        clock,
        { sharing: () => ({ shared: true, localShareOf: 2 }) } as RateLimiter,
        redis,
        { redis: { keyPrefix: `${prefix}${process.pid}:` } } as GatewayConfig,
        `instance-${(instances += 1)}`, // each its own, as two gateways' are
      );

    it('under one call per second, lets one call through, then one per interval (never refuses for good)', async () => {
      const sut = onRedis(0.5, 'throttle-slow:');
      expect(await passed(sut, 3)).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 2_100)); // Redis's clock: one interval of 2 s
      expect(await passed(sut, 3)).toBe(1);
    }, 10_000);

    it('a loss a freshly started instance found first is still a loss to the instances that held the old generation', async () => {
      const prefix = 'throttle-fresh:';
      const old = onRedis(RATE, prefix);
      expect(await passed(old, 1)).toBe(1); // holds the generation
      await redis.del(
        `${prefix}${process.pid}:{risk}:throttle-generation`,
        `${prefix}${process.pid}:{risk}:throttle:loop`,
      );
      const fresh = onRedis(RATE, prefix); // started after the loss: it cannot tell it from a first start
      expect(await passed(fresh, 1)).toBe(1);
      await redis.del(`${prefix}${process.pid}:{risk}:throttle:loop`); // as if the client had not called yet
      expect(await passed(old, RATE)).toBe(0); // it held the old generation: a loss, the bucket created spent
    }, 10_000);

    it('a loss long past does not make an instance that was idle since read full buckets as spent', async () => {
      const prefix = 'throttle-idle:';
      const busy = onRedis(RATE, prefix);
      const idle = onRedis(RATE, prefix);
      expect(await passed(busy, 1)).toBe(1); // the generation both hold
      expect(await passed(idle, 1)).toBe(1);
      await redis.del(
        `${prefix}${process.pid}:{risk}:throttle-generation`,
        `${prefix}${process.pid}:{risk}:throttle:loop`,
      );
      expect(await passed(busy, 1)).toBe(0); // finds the loss: the bucket is created spent
      await new Promise((resolve) => setTimeout(resolve, 1_200)); // the bucket full again, the loss a span old
      await redis.del(`${prefix}${process.pid}:{risk}:throttle:loop`); // expired, as a full bucket's key does
      expect(await passed(idle, RATE)).toBe(RATE); // a full bucket, though this instance held the old generation
    }, 10_000);
  });
});
