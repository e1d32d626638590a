import { canonicalKey, canonicalQuery, upstreamTarget } from './canonical-key.js';

describe(canonicalQuery.name, () => {
  it('sorts keys, so parameter order does not split the cache', () => {
    expect(canonicalQuery({ limit: 10, active: true, offset: 0 })).toBe('active=true&limit=10&offset=0');
    expect(canonicalQuery({ offset: 0, limit: 10, active: true })).toBe(
      canonicalQuery({ limit: 10, active: true, offset: 0 }),
    );
  });

  it('sorts and deduplicates repeated set-like keys', () => {
    expect(canonicalQuery({ slug: ['b', 'a', 'b'] })).toBe('slug=a&slug=b');
    expect(canonicalQuery({ id: [3, 1, 2] })).toBe(canonicalQuery({ id: [2, 3, 1] }));
  });

  it('keeps the order of orderBy, which changes the upstream sort', () => {
    expect(canonicalQuery({ orderBy: ['volume', 'startDate'] })).toBe('orderBy=volume&orderBy=startDate');
    expect(canonicalQuery({ orderBy: ['startDate', 'volume'] })).not.toBe(
      canonicalQuery({ orderBy: ['volume', 'startDate'] }),
    );
  });

  it('drops absent values and escapes the rest', () => {
    expect(canonicalQuery({ query: 'a b&c', tagSlug: undefined })).toBe('query=a+b%26c');
    expect(canonicalQuery({})).toBe('');
  });
});

describe(canonicalKey.name, () => {
  it('starts with the route name so a route purge is a prefix purge', () => {
    expect(canonicalKey('events', upstreamTarget('/v1/events', { limit: 5 }))).toBe('events|/v1/events?limit=5');
    expect(canonicalKey('sports', upstreamTarget('/v1/sports', {}))).toBe('sports|/v1/sports');
  });
});
