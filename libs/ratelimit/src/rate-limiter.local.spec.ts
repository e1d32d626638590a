import { ManualClock, newLimiter, slowBucket } from '../test/limiter.fixture.js';
import { RateLimiter } from './rate-limiter.service.js';

/** Without Redis (REDIS token null): one instance, local buckets, time from the injected clock. */
describe(`${RateLimiter.name} in single-instance mode`, () => {
  it('decides locally with the full limit and refills with the clock', async () => {
    const clock = new ManualClock();
    const { limiter: sut, readiness } = newLimiter({
      redis: null,
      clock,
      limits: { buckets: { 'exchange.orders.insert': { limit: 10, windowSeconds: 1, safetyMargin: 1 } } },
    });
    await sut.start();
    const request = { buckets: ['exchange.orders.insert'] as const, class: 'write' as const };
    const first = [];
    for (let i = 0; i < 11; i++) first.push(await sut.take(request));
    expect(first.filter((d) => d.allowed)).toHaveLength(10);
    expect(first[10]).toMatchObject({ allowed: false, retryAfterMs: 100, mode: 'local', limitedBy: 'bucket' });
    clock.advance(250);
    expect(await sut.take(request)).toMatchObject({ allowed: true, remaining: 1 });
    expect(sut.status()).toEqual({ mode: 'single-instance', degraded: false, instances: 1 });
    expect((await readiness.report()).checks.ratelimit).toEqual({
      status: 'up',
      details: { mode: 'single-instance', instances: 1 },
    });
  });

  it('honours a cool-down locally, never longer than asked', async () => {
    const clock = new ManualClock();
    const { limiter: sut } = newLimiter({ redis: null, clock });
    await sut.coolDown(['exchange.book'], 3);
    expect(await sut.take({ buckets: ['exchange.book'], class: 'read' })).toMatchObject({
      allowed: false,
      retryAfterMs: 3_000,
      limitedBy: 'cool-down',
    });
    clock.advance(3_000);
    expect((await sut.take({ buckets: ['exchange.book'], class: 'read' })).allowed).toBe(true);
  });

  it('counts decisions, upstream 429s and degraded mode on the metrics registry', async () => {
    const { limiter: sut, metrics } = newLimiter({
      redis: null,
      teams: [{ id: 'desk' }],
      limits: { buckets: { 'catalog.public': slowBucket(1) } },
    });
    await sut.take({ buckets: ['catalog.public'], team: 'desk', class: 'read' });
    await sut.take({ buckets: ['catalog.public'], team: 'desk', class: 'read' });
    await sut.coolDown(['catalog.public'], 1);
    const text = await metrics.metrics();
    expect(text).toContain(
      'ratelimit_decisions_total{bucket="catalog.public",scope_key="shared",team="desk",outcome="allowed"} 1',
    );
    expect(text).toContain(
      'ratelimit_decisions_total{bucket="catalog.public",scope_key="shared",team="desk",outcome="limited"} 1',
    );
    expect(text).toContain('ratelimit_upstream_429_total{bucket="catalog.public",key="catalog.public@shared"} 1');
    expect(text).toContain('ratelimit_degraded 0');
  });
});

describe(`${RateLimiter.name}.takeOrWait`, () => {
  // 10 per second without margin: one token every 100 ms; the reserve keeps 2 of 10 from reads.
  const limits = { buckets: { 'retail.all': { limit: 10, windowSeconds: 1, safetyMargin: 1, reserve: 0.2 } } };
  const read = { buckets: ['retail.all'] as const, class: 'read' as const };

  it('queues until the bucket refills, in arrival order', async () => {
    const { limiter: sut } = newLimiter({ redis: null, limits });
    for (let i = 0; i < 8; i++) await sut.take(read);
    const order: number[] = [];
    const waits = [0, 1, 2].map((i) =>
      sut.takeOrWait(read, 5_000).then((d) => {
        order.push(i);
        return d;
      }),
    );
    const decisions = await Promise.all(waits);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(order).toEqual([0, 1, 2]);
  });

  it('refuses at once, with the wait it would need, when that wait exceeds the maximum', async () => {
    const { limiter: sut } = newLimiter({
      redis: null,
      clock: new ManualClock(),
      limits: { buckets: { 'exchange.search': slowBucket(1) } },
    });
    await sut.take({ buckets: ['exchange.search'], class: 'read' });
    const refusal = sut.takeOrWait({ buckets: ['exchange.search'], class: 'read' }, 100);
    await expect(refusal).rejects.toMatchObject({ name: 'BudgetWaitTooLongError', headers: { 'Retry-After': '1000' } });
    await expect(refusal).rejects.toHaveProperty('waitMs', 1_000_000);
  });

  it('never queues a cancel behind waiting reads', async () => {
    const { limiter: sut } = newLimiter({ redis: null, limits });
    for (let i = 0; i < 8; i++) await sut.take(read);
    const order: string[] = [];
    const reads = [0, 1, 2].map((i) => sut.takeOrWait(read, 5_000).then(() => order.push(`read${i}`)));
    const cancel = sut.takeOrWait({ buckets: ['retail.all'], class: 'cancel' }, 5_000).then(() => order.push('cancel'));
    await Promise.all([...reads, cancel]);
    expect(order).toEqual(['cancel', 'read0', 'read1', 'read2']);
  });
});
