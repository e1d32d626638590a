import { GatewayAppConfigSchema } from '../../../../apps/gateway/src/config/gateway-config.schema.js';
import { resolveLimits } from '../../test/limiter.fixture.js';
import { BucketRegistry } from './bucket-registry.js';
import { buildPlan } from './take-plan.js';

const registryOf = (...args: Parameters<typeof resolveLimits>) => {
  const { limits, teams, buckets } = resolveLimits(...args);
  return new BucketRegistry(limits, teams, buckets);
};

describe(BucketRegistry.name, () => {
  it('defaults every bucket to the documented limit times the 0.9 margin', () => {
    const sut = registryOf();
    // spec §8: 440 per 10 s → 396 per 10 s, one token every 10,000/396 ms; a window, so the burst
    // is half of the 44 left over (22): burst + refill stays under 440 in every sliding 10 s, with slack.
    expect(sut.get('retail.orders.create')).toMatchObject({
      published: 440,
      windowSeconds: 10,
      capacity: 22,
      reserve: 0,
    });
    expect(sut.get('retail.orders.create').emissionMs).toBeCloseTo(10_000 / 396);
    expect(sut.get('retail.all')).toMatchObject({ published: 2_000, capacity: 100, reserve: 0.2 });
    expect(sut.get('retail.orders.cancel-all').capacity).toBe(5);
    expect(sut.get('exchange.orders.insert')).toMatchObject({ published: 30, windowSeconds: 1, capacity: 27 });
    expect(sut.get('exchange.orders.cancel').published).toBe(90);
    expect(sut.get('exchange.instruments')).toMatchObject({ published: 6, windowSeconds: 60, capacity: 5 });
    expect(sut.get('catalog.public')).toMatchObject({ published: 20, key: 'catalog.public@shared' });
  });

  it('takes order entry limits from the exchange tier', () => {
    const sut = registryOf({ exchangeTier: 'T4' });
    expect(sut.get('exchange.orders.insert').published).toBe(400);
    expect(sut.get('exchange.orders.cancel').published).toBe(1_200);
    expect(sut.get('exchange.orders.batch').published).toBe(50);
  });

  it('lets config override every number of one bucket', () => {
    const sut = registryOf({
      safetyMargin: 0.5,
      priorityReserve: 0.3,
      buckets: { 'retail.orders.open': { limit: 100, windowSeconds: 20, burst: 7 }, 'retail.all': { safetyMargin: 1 } },
    });
    expect(sut.get('retail.orders.open')).toMatchObject({ published: 100, windowSeconds: 20, capacity: 7 });
    expect(sut.get('retail.orders.open').emissionMs).toBeCloseTo(20_000 / 50);
    expect(sut.get('retail.all')).toMatchObject({ capacity: 2_000, reserve: 0.3 });
    expect(sut.get('retail.orders.get').capacity).toBe(13); // a window bucket: half of 55 × (1 − 0.5)
  });

  it('resolves a team share by exact bucket, then longest prefix, then *', () => {
    const sut = registryOf({}, [
      { id: 'desk', shares: { '*': 0.1, retail: 0.3, 'retail.orders': 0.4, 'retail.all': 0.5 } },
    ]);
    expect(sut.shareOf('desk', 'retail.all')).toBe(0.5);
    expect(sut.shareOf('desk', 'retail.orders.create')).toBe(0.4);
    expect(sut.shareOf('desk', 'exchange.book')).toBe(0.1);
    expect(sut.shareOf('other', 'retail.all')).toBeUndefined();
  });

  it('adds a team-share cell sized share × capacity, and keeps reads out of the reserve', () => {
    const sut = registryOf({}, [{ id: 'desk', shares: { retail: 0.5 } }]);
    const plan = buildPlan(sut, { buckets: ['retail.orders.open', 'retail.all'], team: 'desk', class: 'read' });
    expect(plan.upstreamCount).toBe(2);
    expect(plan.cells.map((c) => [c.key, c.capacity, c.usable])).toEqual([
      ['retail.orders.open', 2, 2],
      ['retail.all', 100, 80],
      ['retail.orders.open:team:desk', 1, 1],
      ['retail.all:team:desk', 50, 40],
    ]);
  });

  it('rejects unknown buckets and share keys in config', () => {
    // The app's schema: the slices, with the declared buckets checked (apps/gateway gateway-config.schema.ts).
    const schema = GatewayAppConfigSchema;
    const base = {
      environment: 'development',
      environments: {
        development: {
          authUrl: 'http://a',
          exchangeUrl: 'http://b',
          grpcTarget: 'c:1',
          retailUrl: 'http://d',
          catalogUrl: 'http://e',
        },
      },
    };
    const result = schema.safeParse({
      ...base,
      limits: { buckets: { 'retail.orders.delete': { limit: 1 } } },
      teams: [{ id: 'x', shares: { 'retail.ord': 0.5, retail: 1.5 } }],
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining(['limits.buckets', 'teams.0.shares.retail.ord', 'teams.0.shares.retail']),
    );
  });
});

describe('bucket scope', () => {
  const sut = registryOf();

  it('counts every retail bucket per API key, the exchange per firm and public calls per IP', () => {
    expect(
      sut
        .all()
        .filter((b) => b.name.startsWith('retail.'))
        .map((b) => b.scope),
    ).toEqual(Array(9).fill('key'));
    expect(sut.get('exchange.orders.insert').scope).toBe('firm');
    expect(sut.get('catalog.public')).toMatchObject({ scope: 'ip', scopeKey: 'shared' });
    expect(sut.get('retail.key')).toMatchObject({
      published: 20,
      windowSeconds: 1,
      capacity: 2,
      reserve: 0.2,
      paceMs: 1_000,
    });
    expect(1000 / sut.get('retail.key').emissionMs + sut.get('retail.key').capacity).toBeCloseTo(16); // in any sliding second
  });

  it('gives each account its own cells, cool-down keys and team-share cells', () => {
    const teams = registryOf({}, [{ id: 'desk', shares: { retail: 0.5 } }]);
    const plan = (account: string) =>
      buildPlan(teams, { buckets: ['retail.orders.create', 'retail.all'], team: 'desk', class: 'write', account });
    expect(plan('main').cells.map((c) => [c.key, c.bucketKey, c.scopeKey])).toEqual([
      ['retail.orders.create@key:main', 'retail.orders.create@key:main', 'main'],
      ['retail.all@key:main', 'retail.all@key:main', 'main'],
      ['retail.orders.create@key:main:team:desk', 'retail.orders.create@key:main', 'main'],
      ['retail.all@key:main:team:desk', 'retail.all@key:main', 'main'],
    ]);
    expect(plan('hedge').id).not.toBe(plan('main').id);
  });

  it('lets config change a scope', () => {
    expect(registryOf({ buckets: { 'retail.all': { scope: 'deployment' } } }).get('retail.all').scope).toBe(
      'deployment',
    );
    expect(
      buildPlan(registryOf({ buckets: { 'retail.all': { scope: 'deployment' } } }), {
        buckets: ['retail.all'],
        class: 'read',
        account: 'main',
      }).cells[0].key,
    ).toBe('retail.all');
  });
});
