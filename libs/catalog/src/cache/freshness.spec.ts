import { entryOf, matchesIfNoneMatch, strongEtag } from './catalog-entry.js';
import { ageSeconds, cacheControl, phaseOf, retentionMs, usableOnError } from './freshness.js';

const windows = { staleWhileRevalidateMs: 10_000, staleIfErrorMs: 60_000 };
const stored = entryOf(200, '{"events":[]}', 'application/json', 1_000_000, 5_000);

describe(phaseOf.name, () => {
  it.each([
    [0, 'fresh'],
    [4_999, 'fresh'],
    [5_000, 'revalidate'],
    [14_999, 'revalidate'],
    [15_000, 'stale'],
    [64_999, 'stale'],
    [65_000, 'expired'],
  ])('at %i ms after storage an entry with a 5 s lifetime is %s', (elapsed, phase) => {
    expect(phaseOf(stored, stored.storedAt + elapsed, windows)).toBe(phase);
  });

  it('goes from fresh straight to expired with both windows at zero', () => {
    const none = { staleWhileRevalidateMs: 0, staleIfErrorMs: 0 };
    expect(phaseOf(stored, stored.storedAt + 4_999, none)).toBe('fresh');
    expect(phaseOf(stored, stored.storedAt + 5_000, none)).toBe('expired');
  });
});

describe(usableOnError.name, () => {
  it('lets an entry stand in for a failed upstream until the stale-if-error window closes', () => {
    expect(usableOnError(stored, stored.storedAt + 64_999, windows)).toBe(true);
    expect(usableOnError(stored, stored.storedAt + 65_000, windows)).toBe(false);
  });
});

describe(retentionMs.name, () => {
  it('keeps an entry for its lifetime plus the longer window', () => {
    expect(retentionMs(stored, windows)).toBe(65_000);
    expect(retentionMs(stored, { staleWhileRevalidateMs: 90_000, staleIfErrorMs: 1_000 })).toBe(95_000);
  });
});

describe('HTTP caching headers', () => {
  it('counts Age in whole seconds from storage, never negative', () => {
    expect(ageSeconds(stored, stored.storedAt + 2_999)).toBe(2);
    expect(ageSeconds(stored, stored.storedAt - 500)).toBe(0);
  });

  it('gives the lifetime as max-age, so max-age − Age is the freshness left', () => {
    expect(cacheControl(stored)).toBe('private, max-age=5');
  });

  it('uses a strong ETag that depends only on the body', () => {
    expect(stored.etag).toBe(strongEtag('{"events":[]}'));
    expect(stored.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(strongEtag('{"events":[1]}')).not.toBe(stored.etag);
  });

  it('matches If-None-Match lists, weak forms and *', () => {
    expect(matchesIfNoneMatch(`"other", ${stored.etag}`, stored.etag)).toBe(true);
    expect(matchesIfNoneMatch(`W/${stored.etag}`, stored.etag)).toBe(true);
    expect(matchesIfNoneMatch('*', stored.etag)).toBe(true);
    expect(matchesIfNoneMatch('"other"', stored.etag)).toBe(false);
    expect(matchesIfNoneMatch(undefined, stored.etag)).toBe(false);
  });
});
