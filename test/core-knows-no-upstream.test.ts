import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CATALOG_BUCKET_NAMES, CATALOG_ROUTE_NAMES } from '@lib/catalog';
import { EXCHANGE_BUCKET_NAMES } from '@lib/exchange';
import { RETAIL_BUCKET_NAMES } from '@lib/retail';

/** libs/core's production sources (specs may use real names as examples). */
function coreSources(dir = 'libs/core/src'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return coreSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('libs/core', () => {
  const declared = [...RETAIL_BUCKET_NAMES, ...EXCHANGE_BUCKET_NAMES, ...CATALOG_BUCKET_NAMES];

  it('names no bucket a surface lib declares (each bucket lives with the calls that spend it)', () => {
    expect(declared.length).toBeGreaterThan(0);
    const mentions = coreSources().flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      // A whole name, not a prefix of a longer one (`retail.orders` inside `retail.orders.create` is not a mention of it).
      return declared
        .filter((name) => new RegExp(`(?<![\\w.-])${name.replace(/[.-]/g, '\\$&')}(?![\\w-]|\\.\\w)`).test(text))
        .map((name) => `${file}: ${name}`);
    });
    expect(mentions).toEqual([]);
  });

  it('names no catalog route (as a quoted name, the way a key or a default table would)', () => {
    const mentions = coreSources().flatMap((file) => {
      // A zod issue's `path: [...]` names a config field (risk.limits[].event), not a route.
      const text = readFileSync(file, 'utf8').replace(/path: \[[^\]]*\]/g, '');
      return CATALOG_ROUTE_NAMES.filter((name) => text.includes(`'${name}'`) || text.includes(`"${name}"`)).map(
        (name) => `${file}: ${name}`,
      );
    });
    expect(mentions).toEqual([]);
  });

  it("declares no upstream's config: no surface's section, address, field or tier (each lib declares its slice)", () => {
    const mentions = coreSources('libs/core/src/config').flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${file}:${i + 1}` }))
        .filter(({ line }) => /exchange|retail|catalog|participant|bucket/i.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(mentions).toEqual([]);
  });
});
