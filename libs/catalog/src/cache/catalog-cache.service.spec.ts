import { Clock, DomainError, ErrorCode, MetricsRegistry } from '@lib/core';

import { CatalogSchema, type CatalogConfigView } from '../config/catalog.config.js';
import { CatalogMetrics } from '../metrics/catalog.metrics.js';
import { CatalogCache } from './catalog-cache.service.js';
import { type CatalogEntry, entryOf } from './catalog-entry.js';
import { MemoryCatalogStore } from './memory-catalog.store.js';

class ManualClock extends Clock {
  at = 1_000_000;
  now(): number {
    return this.at;
  }
}

const URL = 'http://127.0.0.1:1';
const config: CatalogConfigView = {
  environment: 'development',
  environments: { development: { catalogUrl: URL } },
  catalog: CatalogSchema.parse({ staleWhileRevalidateSeconds: 10, staleIfErrorSeconds: 60 }),
};

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe(CatalogCache.name, () => {
  let clock: ManualClock;
  let sut: CatalogCache;
  let calls: number;
  let answer: () => Promise<CatalogEntry>;

  const lookup = (key = 'sports|/v1/sports') => ({ route: 'sports', key, fetch: () => (calls++, answer()) });

  beforeEach(() => {
    clock = new ManualClock();
    sut = new CatalogCache(
      new MemoryCatalogStore(100, () => clock.now()),
      config,
      new CatalogMetrics(new MetricsRegistry()),
      clock,
    );
    calls = 0;
    answer = async () => entryOf(200, `{"at":${clock.now()}}`, 'application/json', clock.now(), 5_000);
  });

  it('makes one upstream call for concurrent misses of one key and lets the others join it', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => sut.get(lookup())));
    expect(calls).toBe(1);
    expect(results.map((r) => r.result).sort()).toEqual([...Array(9).fill('coalesced'), 'miss']);
    expect((await sut.get(lookup())).result).toBe('hit');
  });

  it('serves a stale entry and refreshes it once in the background', async () => {
    await sut.get(lookup());
    clock.at += 6_000;
    const stale = await Promise.all([sut.get(lookup()), sut.get(lookup())]);
    expect(stale.map((r) => r.result)).toEqual(['stale', 'stale']);
    await flush();
    expect(calls).toBe(2);
    const fresh = await sut.get(lookup());
    expect(fresh).toMatchObject({ result: 'hit', entry: { storedAt: clock.now() } });
  });

  it('answers a failed refresh with the stale entry inside the stale-if-error window only', async () => {
    await sut.get(lookup());
    answer = async () => {
      throw new DomainError(ErrorCode.UPSTREAM_ERROR, 'down');
    };
    clock.at += 5_000 + 30_000; // past stale-while-revalidate, inside stale-if-error
    expect((await sut.get(lookup())).result).toBe('stale');
    clock.at += 30_000; // past stale-if-error
    await expect(sut.get(lookup())).rejects.toMatchObject({ code: ErrorCode.UPSTREAM_ERROR });
  });

  it('does not hide a request the upstream refused as bad behind a stale entry', async () => {
    await sut.get(lookup());
    answer = async () => {
      throw new DomainError(ErrorCode.UPSTREAM_BAD_REQUEST, 'no');
    };
    clock.at += 20_000;
    await expect(sut.get(lookup())).rejects.toMatchObject({ code: ErrorCode.UPSTREAM_BAD_REQUEST });
  });

  it('keeps nothing from a refresh that was under way when a purge came', async () => {
    await sut.get(lookup());
    clock.at += 6_000;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const fetched = answer;
    answer = async () => (await held, fetched());
    expect((await sut.get(lookup())).result).toBe('stale'); // starts the background refresh, held open
    await sut.purge({ route: 'sports' });
    release();
    await flush();
    answer = fetched;
    expect((await sut.get(lookup())).result).toBe('miss');
  });

  it('purges by route and prefix', async () => {
    await sut.get(lookup('book|/v1/markets/a/book'));
    await sut.get(lookup('book|/v1/markets/b/book'));
    await sut.get(lookup('sports|/v1/sports'));
    expect(await sut.purge({ prefix: '/v1/markets/a' })).toEqual({ shared: 1, local: 1 });
    expect(await sut.purge({ route: 'book' })).toEqual({ shared: 1, local: 1 });
    expect((await sut.get(lookup('sports|/v1/sports'))).result).toBe('hit');
    expect((await sut.get(lookup('book|/v1/markets/a/book'))).result).toBe('miss');
  });
});
