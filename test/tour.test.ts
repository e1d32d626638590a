import { shortLine } from '../tools/log-lines.js';
import { runTour } from '../tools/tour-steps.js';
import { type Stack, startStack } from './support/stack.js';

describe('npm run tour', () => {
  let stack: Stack;
  beforeAll(async () => {
    // A budget decision may be spent as late as a busy test machine spends it: the tour is no lateness test
    // (a retail create refused late, 429, failed it in ci52).
    stack = await startStack({
      gateway: (config) => ({ ...config, limits: { ...config.limits, maxDecisionAgeMs: 30_000 } }),
    });
  });
  afterAll(() => stack.close());

  it('walks catalog cache, a crossing order, budget headers and /ws against the in-process stack', async () => {
    const lines: string[] = [];
    const result = await runTour({
      url: stack.url,
      key: stack.keys.all,
      write: (line) => lines.push(line),
      watchMs: 1500,
    });
    expect(result.catalogCache).toEqual(['MISS', 'HIT']);
    expect(result.exchangeOrderState).toBe('ORDER_STATE_FILLED');
    // The snapshot, then the bid placed and the bid cancelled.
    expect(result.framesSeen).toBeGreaterThanOrEqual(3);
    expect(lines.join('\n')).toMatch(/ratelimit-policy: "exchange\.orders\.insert"/);
    expect(lines.join('\n')).toMatch(/ratelimit-policy: "retail\.orders\.create"/);
  });
});

describe(shortLine.name, () => {
  it('hides the framework start-up lines and shortens the rest', () => {
    expect(
      shortLine('gateway', '{"level":30,"time":0,"context":"RouterExplorer","msg":"Mapped {/me, GET} route"}'),
    ).toBeUndefined();
    expect(shortLine('gateway', '{"level":40,"time":0,"context":"RouterExplorer","msg":"odd"}')).toBe(
      '00:00:00 warn  gateway RouterExplorer: odd',
    );
    expect(
      shortLine(
        'gateway',
        '{"level":30,"time":0,"log":"access","method":"GET","url":"/me","status":200,"ms":0.5,"msg":"request completed"}',
      ),
    ).toBe('00:00:00 info  GET /me → 200 (0.5 ms)');
    expect(shortLine('sandbox', 'plain text')).toBe('sandbox: plain text');
  });
});
