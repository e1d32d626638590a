import fc from 'fast-check';

import { canonicalJson } from './canonical-json.js';

/** What canonicalJson was until it wrote text directly: JSON.stringify of a key-sorted copy. Fingerprints already stored were made with it. */
function reference(value: unknown): string {
  const sorted = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sorted);
    if (item === null || typeof item !== 'object') return item;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) {
      const inner = (item as Record<string, unknown>)[key];
      if (inner !== undefined) out[key] = sorted(inner);
    }
    return out;
  };
  return JSON.stringify(sorted(value));
}

describe('canonicalJson', () => {
  it('writes the same text as JSON.stringify of a key-sorted copy, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => canonicalJson(value) === reference(value)),
      { numRuns: 500 },
    );
  });

  it('orders integer-like keys as a plain object does, and leaves out __proto__, undefined, functions and symbols as before', () => {
    const value = JSON.parse(
      '{"b":1,"10":2,"9":3,"a":[1,null],"__proto__":{"x":1},"01":4,"-1":5,"4294967295":6,"4294967294":7}',
    ) as Record<string, unknown>;
    const odd = {
      ...value,
      u: undefined,
      f: () => 1,
      s: Symbol('s'),
      list: [undefined, () => 1, Number.NaN, -0, 1e21],
      at: new Date(0),
      nested: { z: { y: 1, x: [{ b: 2, a: 1 }] } },
    };
    expect(canonicalJson(odd)).toBe(reference(odd));
    expect(canonicalJson(value)).toBe(reference(value));
  });

  it('keys sorted at every depth', () => {
    expect(canonicalJson({ b: { d: 1, c: [{ f: 1, e: 2 }] }, a: 'x' })).toBe(
      '{"a":"x","b":{"c":[{"e":2,"f":1}],"d":1}}',
    );
  });
});
