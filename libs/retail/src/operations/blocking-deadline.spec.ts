import { MAX_BLOCK_SECONDS, blockingDeadlineMs } from './blocking-deadline.js';

describe(blockingDeadlineMs.name, () => {
  it('keeps the ordinary deadline for a call that does not block', () => {
    expect(blockingDeadlineMs({ maxBlockTime: '30' }, 10_000)).toBeUndefined();
  });

  it('adds maxBlockTime to the ordinary deadline for a synchronous order', () => {
    expect(blockingDeadlineMs({ synchronousExecution: true, maxBlockTime: '5' }, 10_000)).toBe(15_000);
  });

  it('caps what a client may ask for', () => {
    expect(blockingDeadlineMs({ synchronousExecution: true, maxBlockTime: '9223372036854775807' }, 1_000)).toBe(1_000 + MAX_BLOCK_SECONDS * 1_000);
  });
});
