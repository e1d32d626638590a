import type { ExecutionMessage } from '@lib/exchange';

import { STREAM_WAIT_MS, StreamRejects } from './stream-rejects.js';

const ACCOUNT = 'firms/F/users/alice';
const execution = (clordId: string, type: string, state: string, account = ACCOUNT): ExecutionMessage => ({
  id: `E-${clordId}-${type}`,
  type,
  order: { id: `O-${clordId}`, account, state, clordId },
});
const rejected = (clordId: string, account?: string) =>
  execution(clordId, 'EXECUTION_TYPE_REJECTED', 'ORDER_STATE_REJECTED', account);
const accepted = (clordId: string) => execution(clordId, 'EXECUTION_TYPE_NEW', 'ORDER_STATE_NEW');

describe('StreamRejects: the order stream tells the fate of the inserts this instance sent', () => {
  it('counts a reject once for the client that sent the insert, before or after its answer, and nothing for an accepted order', () => {
    const sut = new StreamRejects();
    const before = sut.expect('bot', ACCOUNT, ['c1', 'c2'], 0);
    expect(sut.seen(rejected('c1'))).toBe('bot'); // before the answer
    expect(sut.seen(rejected('c1'))).toBeUndefined(); // a repeat of the execution
    expect(sut.answered(before, false)).toBe(1);
    expect(sut.seen(accepted('c2'))).toBeUndefined();
    expect(sut.seen(rejected('c2'))).toBeUndefined(); // settled by its first execution

    const after = sut.expect('bot', ACCOUNT, ['c3'], 0);
    sut.answered(after, false);
    expect(sut.seen(rejected('c3'))).toBe('bot');
    expect(sut.sweep(0)).toBe(0);
  });

  it('does not count twice an insert whose answer was itself a reject, ignores orders it did not send, forgets after the wait', () => {
    const sut = new StreamRejects();
    const keys = sut.expect('bot', ACCOUNT, ['d1'], 0);
    expect(sut.seen(rejected('d1'))).toBe('bot');
    expect(sut.answered(keys, true)).toBe(1); // the caller subtracts it from the answer's count
    expect(sut.seen(rejected('other'))).toBeUndefined();
    expect(sut.seen(rejected('d1', 'firms/F/users/bob'))).toBeUndefined();

    sut.expect('bot', ACCOUNT, ['d2'], 0);
    expect(sut.sweep(STREAM_WAIT_MS)).toBe(1);
    expect(sut.sweep(STREAM_WAIT_MS + 1)).toBe(0);
    expect(sut.seen(rejected('d2'))).toBeUndefined();
  });
});
