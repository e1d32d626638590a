import type { ExecutionMessage } from '@lib/exchange';

import { STREAM_WAIT_MS, StreamRejects, answeredOrderIds } from './stream-rejects.js';

const ACCOUNT = 'firms/F/users/alice';
const execution = (
  clordId: string,
  type: string,
  state: string,
  account = ACCOUNT,
  orderId = `O-${clordId}`,
): ExecutionMessage => ({
  id: `E-${orderId}-${type}`,
  type,
  order: { id: orderId, account, state, clordId },
});
const rejected = (clordId: string, account?: string, orderId?: string) =>
  execution(clordId, 'EXECUTION_TYPE_REJECTED', 'ORDER_STATE_REJECTED', account, orderId);
const accepted = (clordId: string, orderId?: string) =>
  execution(clordId, 'EXECUTION_TYPE_NEW', 'ORDER_STATE_NEW', ACCOUNT, orderId);

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

  it('two clients awaiting one clordId (two teams on one participant): the order id tells whose reject it is', () => {
    const sut = new StreamRejects();
    // The answers come first: each names its order id.
    const bad = sut.expect('bad', ACCOUNT, ['e1'], 0);
    const good = sut.expect('good', ACCOUNT, ['e1'], 0);
    expect(sut.placed(bad, ['O-bad'])).toBe(0);
    expect(sut.seen(rejected('e1', ACCOUNT, 'O-bad'))).toBe('bad');
    expect(sut.placed(good, ['O-good'])).toBe(0);
    expect(sut.seen(accepted('e1', 'O-good'))).toBeUndefined();
    expect(sut.sweep(0)).toBe(0);

    // The stream comes first: the reject waits for the answer that names its order id.
    const bad2 = sut.expect('bad', ACCOUNT, ['e2'], 0);
    const good2 = sut.expect('good', ACCOUNT, ['e2'], 0);
    expect(sut.seen(rejected('e2', ACCOUNT, 'O-bad2'))).toBeUndefined();
    expect(sut.placed(bad2, ['O-bad2'])).toBe(1); // counted for bad by its caller
    expect(sut.seen(accepted('e2', 'O-good2'))).toBeUndefined(); // good's alone is left: settled
    expect(sut.placed(good2, ['O-good2'])).toBe(0);
    expect(sut.sweep(0)).toBe(0);

    // An answer that never names the order id: its reject is charged to nobody, never to the other client.
    const lost = sut.expect('bad', ACCOUNT, ['e3'], 0);
    const other = sut.expect('good', ACCOUNT, ['e3'], 0);
    expect(sut.seen(rejected('e3', ACCOUNT, 'O-lost'))).toBeUndefined();
    expect(sut.answered(lost, false)).toBe(0);
    expect(sut.placed(other, ['O-other'])).toBe(0);
    expect(sut.seen(rejected('e3', ACCOUNT, 'O-lost'))).toBeUndefined();
  });

  it('reads the order ids of an insert or batch insert answer, by position', () => {
    expect(answeredOrderIds('{"orderId":"O1"}', 1)).toEqual(['O1']);
    expect(answeredOrderIds('{"responses":[{"orderId":"O1"},{"error":{"code":3}}]}', 2)).toEqual(['O1', undefined]);
    expect(answeredOrderIds('{"responses":[{"orderId":"O1"}]}', 2)).toEqual([]);
    expect(answeredOrderIds('not json', 1)).toEqual([]);
  });
});
