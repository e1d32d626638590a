import { type TopicPolicy, latestFold } from '../source/topic-source.types.js';
import { mergeFold } from '../testing/hub.fixture.js';
import { TopicState } from './topic.state.js';

const source = { open: () => undefined, close: () => undefined };

function topic(policy: TopicPolicy): TopicState {
  return new TopicState('t', { prefix: 't', source, policy });
}

describe(TopicState.name, () => {
  it('numbers every frame it emits by one, whatever its type', () => {
    const sut = topic({ conflate: true });
    expect(sut.emit('snapshot', { a: 1 }, 1, 0).seq).toBe(1);
    expect(sut.emit('update', { b: 1 }, 2, 0).seq).toBe(2);
    sut.gapPending = true;
    const resync = sut.emit('snapshot', { a: 2 }, 3, 0);
    expect([resync.type, resync.seq]).toEqual(['resync', 3]);
    expect(JSON.parse(resync.json)).toEqual({ type: 'resync', topic: 't', epoch: '', seq: 3, ts: 3, data: { a: 2 } });
  });

  it('catches a conflated client up with the state when the frames it skipped reset it', () => {
    const sut = topic({ conflate: true });
    sut.emit('snapshot', { a: 1 }, 1, 0);
    const latest = sut.emit('update', { trade: 1 }, 2, 0);

    expect(sut.catchUp(latest, false)).toBe(latest);
    const caughtUp = sut.catchUp(latest, true);
    expect(JSON.parse(caughtUp.json)).toMatchObject({ type: 'resync', seq: 2, data: { a: 1 } });
  });

  it('records a whole-state update by its own frame, and a folded state every few updates', () => {
    const books = topic({ conflate: true, fold: latestFold });
    books.emit('snapshot', { bid: 1 }, 1, 0);
    const update = books.emit('update', { bid: 2 }, 2, 0);
    expect(books.recordDue(update)).toBe(update);
    expect(JSON.parse(books.stateFrame('snapshot')!.json)).toMatchObject({ seq: 2, data: { bid: 2 } });

    const counts = topic({
      conflate: false,
      replayWindow: { messages: 1_000, ms: 60_000 },
      fold: mergeFold((state, update) => ({ n: (state as { n: number }).n + (update as { n: number }).n })),
    });
    expect(counts.recordDue(counts.emit('snapshot', { n: 0 }, 1, 0))?.seq).toBe(1);
    const recorded: number[] = [];
    for (let i = 2; i <= 250; i++) {
      const due = counts.recordDue(counts.emit('update', { n: 1 }, i, 0));
      if (due) recorded.push(JSON.parse(due.json).seq as number);
    }
    expect(recorded).toEqual([101, 201]);
  });

  it('catches a conflated client up with the merged state when updates change the state', () => {
    const sut = topic({
      conflate: true,
      fold: mergeFold((state, change) => ({ ...(state as object), ...(change as object) })),
    });
    sut.emit('snapshot', { bid: 1, ask: 3 }, 1, 0);
    sut.emit('update', { bid: 2 }, 2, 0);
    const latest = sut.emit('update', { ask: 4 }, 3, 0);
    expect(JSON.parse(sut.catchUp(latest, false).json)).toMatchObject({
      type: 'snapshot',
      seq: 3,
      data: { bid: 2, ask: 4 },
    });
  });

  it('replays from its window only what it still holds, contiguous', () => {
    const sut = topic({ conflate: false, replayWindow: { messages: 3, ms: 1_000 } });
    for (let i = 1; i <= 5; i += 1) sut.emit('update', { i }, i, 0);
    expect(sut.replayAfter(2, 5)?.map((f) => f.seq)).toEqual([3, 4, 5]);
    expect(sut.replayAfter(5, 5)).toEqual([]);
    expect(sut.replayAfter(1, 5)).toBeUndefined(); // frame 2 fell out
    expect(sut.replayAfter(9, 5)).toBeUndefined(); // a seq from another life of the topic
    expect(sut.replayAfter(2, 1_004)).toBeUndefined(); // frame 3 is too old by then
  });

  it('tells what its window delivered: the data of the updates it still holds, oldest first', () => {
    const sut = topic({ conflate: false, replayWindow: { messages: 3, ms: 1_000 } });
    expect(sut.deliveredUpdates()).toEqual([]);
    sut.emit('snapshot', { executions: [] }, 1, 0);
    for (let i = 1; i <= 3; i += 1) sut.emit('update', { executions: [{ id: `x${i}` }] }, 1 + i, 0);
    expect(sut.deliveredUpdates()).toEqual([
      { executions: [{ id: 'x1' }] },
      { executions: [{ id: 'x2' }] },
      { executions: [{ id: 'x3' }] },
    ]);
    expect(topic({ conflate: true }).deliveredUpdates()).toEqual([]); // no window, nothing to tell
  });

  it('opens a new epoch with a resync of fresh state: updates before it are dropped, the old window and state are gone', () => {
    const sut = topic({ conflate: false, replayWindow: { messages: 10, ms: 1_000 } });
    sut.beginEpoch('e1');
    sut.emit('snapshot', { a: 1 }, 1, 0);
    sut.emit('update', { b: 1 }, 2, 0);
    sut.beginEpoch('e2');
    expect([sut.awaitingState, sut.stateFrame('snapshot'), sut.replayAfter(1, 0)]).toEqual([
      true,
      undefined,
      undefined,
    ]);
    const first = sut.emit('snapshot', { a: 2 }, 3, 0);
    expect(JSON.parse(first.json)).toMatchObject({ type: 'resync', epoch: 'e2', seq: 3, data: { a: 2 } });
    expect(sut.awaitingState).toBe(false);
  });

  it("seeds a relay into the holder's recorded epoch only with its state, and says when its clients need a resync", () => {
    const sut = topic({ conflate: true });
    expect(sut.seed({ snapshot: undefined, seq: 4, epoch: 'e1' })).toBe(false); // no state to enter the epoch with
    expect(sut.epoch).toBe('');
    const snapshot = { type: 'snapshot' as const, topic: 't', epoch: 'e1', seq: 4, ts: 1, data: { a: 1 } };
    expect(sut.seed({ snapshot, seq: 4, epoch: 'e1' })).toBe(false); // first epoch: nothing to replace
    expect([sut.epoch, sut.seq]).toEqual(['e1', 4]);
    expect(sut.seed({ snapshot: { ...snapshot, epoch: 'e2', data: { a: 2 } }, seq: 2, epoch: 'e2' })).toBe(true);
    expect(JSON.parse(sut.stateFrame('resync')?.json ?? '{}')).toMatchObject({
      type: 'resync',
      epoch: 'e2',
      seq: 2,
      data: { a: 2 },
    });
  });
});
