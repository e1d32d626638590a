import { SENDS_PER_ORDER, SharedCancels } from './shared-cancels.js';

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
  it('sends two cancels of one order at once, and answers further duplicates from the newest send', async () => {
    const cancels = new SharedCancels<number>();
    const { send, ends } = controlledSends();
    const calls = Array.from({ length: 5 }, () => cancels.run('o1', 'same', send));
    await tick();
    expect(ends).toHaveLength(SENDS_PER_ORDER);
    ends[0]!();
    ends[1]!();
    expect(await Promise.all(calls)).toEqual([1, 2, 2, 2, 2]);
    // Once answered, the next cancel is sent again.
    const later = cancels.run('o1', 'same', send);
    await tick();
    ends[2]!();
    expect(await later).toBe(3);
  });

  it('sends another request of the order after the newest send once two are under way, and another order at once', async () => {
    const cancels = new SharedCancels<number>();
    const { send, ends } = controlledSends();
    const first = cancels.run('o1', 'a', send);
    const second = cancels.run('o1', 'a', send);
    const other = cancels.run('o1', 'b', send);
    const joined = cancels.run('o1', 'b', send);
    const elsewhere = cancels.run('o2', 'a', send);
    await tick();
    expect(ends).toHaveLength(3); // o1's two and o2's; o1's `b` waits
    ends[1]!();
    expect(await second).toBe(2);
    await tick();
    expect(ends).toHaveLength(4);
    ends[0]!();
    ends[3]!();
    ends[2]!();
    expect(await Promise.all([first, other, joined, elsewhere])).toEqual([1, 4, 4, 3]);
  });

  it('shares a failed send, and the one behind it is still sent', async () => {
    const cancels = new SharedCancels<number>();
    const { send, ends, fails } = controlledSends();
    const first = cancels.run('o1', 'a', send);
    const second = cancels.run('o1', 'a', send);
    const duplicate = cancels.run('o1', 'a', send);
    const behind = cancels.run('o1', 'b', send);
    await tick();
    fails[1]!(new Error('lost'));
    await expect(second).rejects.toThrow('lost');
    await expect(duplicate).rejects.toThrow('lost');
    await tick();
    ends[0]!();
    ends[2]!();
    expect(await Promise.all([first, behind])).toEqual([1, 3]);
  });
});
