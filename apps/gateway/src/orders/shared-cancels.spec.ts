import { SharedCancels } from './shared-cancels.js';

/** A send whose end the test decides: each call a new pending promise, numbered. */
function controlledSends() {
  const ends: Array<() => void> = [];
  const fails: Array<(error: Error) => void> = [];
  const send = () =>
    new Promise<number>((resolve, reject) => {
      const n = ends.length + 1;
      ends.push(() => resolve(n));
      fails.push(reject);
    });
  return { send, ends, fails };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe(SharedCancels.name, () => {
  it('answers concurrent duplicates of one order from one send', async () => {
    const cancels = new SharedCancels<number>();
    const { send, ends } = controlledSends();
    const calls = Array.from({ length: 5 }, () => cancels.run('o1', 'same', send));
    await tick();
    expect(ends).toHaveLength(1);
    ends[0]!();
    expect(await Promise.all(calls)).toEqual([1, 1, 1, 1, 1]);
    // Once answered, the next cancel is sent again.
    const later = cancels.run('o1', 'same', send);
    await tick();
    ends[1]!();
    expect(await later).toBe(2);
  });

  it('sends another request of the same order after the send ahead of it, and another order at once', async () => {
    const cancels = new SharedCancels<number>();
    const { send, ends } = controlledSends();
    const first = cancels.run('o1', 'a', send);
    const other = cancels.run('o1', 'b', send);
    const joined = cancels.run('o1', 'b', send);
    const elsewhere = cancels.run('o2', 'a', send);
    await tick();
    expect(ends).toHaveLength(2); // o1's first and o2's; o1's second waits
    ends[0]!();
    expect(await first).toBe(1);
    await tick();
    expect(ends).toHaveLength(3);
    ends[2]!();
    ends[1]!();
    expect(await Promise.all([other, joined, elsewhere])).toEqual([3, 3, 2]);
  });

  it('shares a failed send, and the one behind it is still sent', async () => {
    const cancels = new SharedCancels<number>();
    const { send, ends, fails } = controlledSends();
    const first = cancels.run('o1', 'a', send);
    const duplicate = cancels.run('o1', 'a', send);
    const behind = cancels.run('o1', 'b', send);
    await tick();
    fails[0]!(new Error('lost'));
    await expect(first).rejects.toThrow('lost');
    await expect(duplicate).rejects.toThrow('lost');
    await tick();
    ends[1]!();
    expect(await behind).toBe(2);
  });
});
