import { ValidationError } from '@lib/core';

import { blockingPlan } from './blocking-deadline.js';

describe(blockingPlan.name, () => {
  it('keeps the ordinary deadline and pool for a call that does not block', () => {
    expect(blockingPlan({ maxBlockTime: '30' }, 10_000, 30)).toEqual({ body: { maxBlockTime: '30' }, blocking: false });
  });

  it('adds maxBlockTime to the ordinary deadline for a synchronous order, in the blocking pool', () => {
    expect(blockingPlan({ synchronousExecution: true, maxBlockTime: '5' }, 10_000, 30)).toMatchObject({
      blocking: true,
      timeoutMs: 15_000,
    });
  });

  it('refuses more than the cap, naming the field', () => {
    const run = () => blockingPlan({ synchronousExecution: true, maxBlockTime: '9223372036854775807' }, 1_000, 30);
    expect(run).toThrow(ValidationError);
    expect(run).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ path: 'body.maxBlockTime' })] }));
  });

  it('asks for the cap when the assumed default block would pass it', () => {
    expect(blockingPlan({ synchronousExecution: true }, 1_000, 5)).toEqual({
      body: { synchronousExecution: true, maxBlockTime: '5' },
      blocking: true,
      timeoutMs: 6_000,
    });
    expect(blockingPlan({ synchronousExecution: true }, 1_000, 60)).toEqual({
      body: { synchronousExecution: true },
      blocking: true,
      timeoutMs: 31_000,
    });
  });
});
