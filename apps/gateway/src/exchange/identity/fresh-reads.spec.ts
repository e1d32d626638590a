import { FreshReads } from './fresh-reads.js';

/** A read whose end the test decides: each call a new pending promise, numbered. */
function controlledReads() {
  const ends: Array<(value: number) => void> = [];
  const fails: Array<(error: Error) => void> = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const n = ends.length + 1;
      ends.push(() => resolve(n));
      fails.push(reject);
    });
  return { read, ends, fails };
}

describe(FreshReads.name, () => {
  it('lets callers that come during a read share the next one, and starts at most one more', async () => {
    const reads = new FreshReads<number>();
    const { read, ends } = controlledReads();
    const first = reads.get('p', read);
    const during = Array.from({ length: 100 }, () => reads.get('p', read));
    expect(ends).toHaveLength(1);
    ends[0]!(0);
    expect(await first).toBe(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(ends).toHaveLength(2);
    ends[1]!(0);
    // Each caller that came while read 1 was in flight gets read 2, which started after it came.
    expect(new Set(await Promise.all(during))).toEqual(new Set([2]));
    expect(ends).toHaveLength(2);
  });

  it('keeps keys apart, and a failed read fails only its own callers; the next read runs', async () => {
    const reads = new FreshReads<number>();
    const { read, ends, fails } = controlledReads();
    const a = reads.get('a', read);
    const b = reads.get('b', read);
    const aNext = reads.get('a', read);
    fails[0]!(new Error('down'));
    await expect(a).rejects.toThrow('down');
    ends[1]!(0);
    expect(await b).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    ends[2]!(0);
    expect(await aNext).toBe(3);
    // Nothing left under way: a new caller starts a read of its own.
    const later = reads.get('a', read);
    expect(ends).toHaveLength(4);
    ends[3]!(0);
    expect(await later).toBe(4);
  });
});
