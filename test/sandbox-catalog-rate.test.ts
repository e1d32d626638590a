import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import { startTestSandbox } from './support/sandbox-harness.js';

// upstream-facts: the catalog allows 20 requests/s per client address; configurable, counted under /_sandbox/.

describe('sandbox catalog rate limit per client address', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox({ catalog: { requestsPerSecondPerAddress: 3 } });
  });
  afterAll(() => sandbox.close());

  it('answers 429 with Retry-After past the per-address rate, and counts each refusal', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => fetch(`${sandbox.urls.catalog}/v1/sports`)));
    const refused = answers.filter((res) => res.status === 429);

    expect(answers.filter((res) => res.status === 200).length).toBeGreaterThanOrEqual(3);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(answers.every((res) => res.status === 200 || res.status === 429)).toBe(true);
    expect(await refused[0].json()).toEqual({ status: 429, message: 'Too Many Requests' });
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const { counters } = (await (await fetch(`${sandbox.urls.auth}/_sandbox/counters`)).json()) as {
      counters: Record<string, number>;
    };
    expect(counters['catalog.rateLimited']).toBe(refused.length);
    expect(Object.keys(counters).filter((name) => name.startsWith('catalog.rateLimited.'))).toHaveLength(1); // one address: this test's
  });

  it('is lifted by the operator setting "off"', async () => {
    const open = await startTestSandbox({ catalog: { requestsPerSecondPerAddress: 'off' } });
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${open.urls.catalog}/v1/sports`)));
      expect(answers.map((res) => res.status)).toEqual(Array(40).fill(200));
    } finally {
      await open.close();
    }
  });
});
