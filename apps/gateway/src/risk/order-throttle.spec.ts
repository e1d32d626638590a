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
});
