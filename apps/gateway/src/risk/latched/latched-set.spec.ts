import { systemClock } from '@lib/core';

import { LatchedSet } from './latched-set.js';
import type { LatchedSource } from './latched-source.js';

/** A source whose first `failing` reads throw (a Redis command timed out), then answer one record. */
function flakySource(failing: number): LatchedSource<string> & { reads: number } {
  return {
    reads: 0,
    read() {
      this.reads++;
      return this.reads <= failing
        ? Promise.reject(new Error('Command timed out'))
        : Promise.resolve(new Map([['firm', 'halted']]));
    },
    watch: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

const settled = async (set: LatchedSet<string>) => {
  for (let i = 0; i < 200 && set.readAt === undefined; i++) await new Promise((r) => setTimeout(r, 25));
};

describe('LatchedSet', () => {
  it('reads again soon after failed reads, not a whole resync period later (orders are refused while the set is unknown)', async () => {
    const source = flakySource(3);
    const set = new LatchedSet(source, { resyncMs: 600_000, clock: systemClock, redis: null, name: 'spec' });
    await set.start();
    expect(set.readAt).toBeUndefined(); // the read at start failed
    try {
      await settled(set);
      expect(set.readAt).toBeDefined();
      expect(set.get('firm')).toBe('halted');
      expect(source.reads).toBe(4);
    } finally {
      await set.stop();
    }
  });

  it('stops re-reading once stopped', async () => {
    const source = flakySource(Infinity);
    const set = new LatchedSet(source, { resyncMs: 600_000, clock: systemClock, redis: null, name: 'spec' });
    await set.start();
    await set.stop();
    const reads = source.reads;
    await new Promise((r) => setTimeout(r, 300));
    expect(source.reads).toBe(reads);
  });
});
