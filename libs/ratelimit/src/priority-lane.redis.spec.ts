import type { RedisClient } from '@lib/core';
import { EXCHANGE_BUDGETS } from '@lib/exchange';

import { LimiterPool, slowBucket, testRedis, testRedisUrl, uniquePrefix } from '../test/limiter.fixture.js';
import { budgetFor } from './budget/route-budgets.js';
import { PRIORITY_LANE } from './budget/take-plan.js';

/**
 * These judge the lane and the capacity, not lateness: a Redis answer read late on a loaded machine
 * would be refused (rate-limiter.redis.spec judges that), so the age limit is set out of reach here,
 * and so is the client's command timeout (as redis-budget.store.spec's): in a CI run whose two jest
 * workers kept the cores busy (load average 4), commands timed out at the fixture's 1 s, the limiter
 * decided locally (its share starts spent) and all 20 of the flood were refused.
 */
const LANE_ONLY = 60_000;

/** The kill switch's cancels (EXCHANGE_BUDGETS.priorityCancel) against ordinary cancels, on the run's real Redis, two instances. */
describe('the cancel bucket priority lane', () => {
  let redis: RedisClient;
  const pool = new LimiterPool();

  beforeAll(() => {
    redis = testRedis(testRedisUrl(process.env.TEST_REDIS_URL), LANE_ONLY);
  });
  afterEach(() => pool.stopAll());
  afterAll(async () => {
    await redis.quit();
  });

  it('while a kill-switch run sends, ordinary cancels stop short of the lane; the kill switch takes it at once, and no more than the capacity is ever taken', async () => {
    const options = {
      redis,
      keyPrefix: uniquePrefix(),
      limits: { maxDecisionAgeMs: LANE_ONLY, buckets: { 'exchange.orders.cancel': slowBucket(20) } },
    };
    const { limiter: a } = await pool.start(options);
    const { limiter: b } = await pool.start(options);
    // PriorityLane.inUse: the kill switch runs on this instance.
    const ordinary = budgetFor(EXCHANGE_BUDGETS.cancelOrder, 'platform', undefined, undefined, true);
    const kill = budgetFor(EXCHANGE_BUDGETS.priorityCancel, 'gateway');

    const flood = [];
    for (let i = 0; i < 20; i++) flood.push((await a.take(ordinary)).allowed);
    const lane = Math.round(20 * PRIORITY_LANE);
    expect(flood.filter(Boolean)).toHaveLength(20 - lane);
    expect(flood.at(-1)).toBe(false);

    const priority = [];
    for (let i = 0; i < lane + 1; i++) priority.push(await b.take(kill));
    expect(priority.map((d) => d.allowed)).toEqual([...Array.from({ length: lane }, () => true), false]);
    expect(priority.at(-1)).toMatchObject({ mode: 'redis', bucket: 'exchange.orders.cancel', limit: 20 });
    // The capacity is the published figure: ordinary and priority together took exactly it.
    expect(flood.filter(Boolean).length + priority.filter((d) => d.allowed).length).toBe(20);
    expect((await a.take(ordinary)).allowed).toBe(false);
  });

  it('with no kill-switch run, an ordinary cancel may spend the whole bucket: no gateway rule holds it back', async () => {
    const { limiter } = await pool.start({
      redis,
      keyPrefix: uniquePrefix(),
      limits: { maxDecisionAgeMs: LANE_ONLY, buckets: { 'exchange.orders.cancel': slowBucket(20) } },
    });
    const ordinary = budgetFor(EXCHANGE_BUDGETS.cancelOrder, 'platform');
    const taken = [];
    for (let i = 0; i < 21; i++) taken.push((await limiter.take(ordinary)).allowed);
    expect(taken.filter(Boolean)).toHaveLength(20);
    expect(taken.at(-1)).toBe(false);
  });
});
