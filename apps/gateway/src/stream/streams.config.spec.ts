import { StreamsSchema, teamStreamShares } from './streams.config.js';

const streams = (exchange: Record<string, unknown> = {}) => StreamsSchema.parse({ exchange });

describe(teamStreamShares.name, () => {
  it('splits the firm streams less the reserve evenly, the remainder to the first teams', () => {
    expect(teamStreamShares(streams(), ['platform', 'trading'])).toEqual({ platform: 10, trading: 9 });
    expect(teamStreamShares(streams(), ['a', 'b', 'c'])).toEqual({ a: 7, b: 6, c: 6 });
  });

  it('keeps configured shares and splits what they leave among the other teams', () => {
    expect(teamStreamShares(streams({ teamShares: { trading: 12 } }), ['platform', 'trading', 'research'])).toEqual({
      platform: 4,
      trading: 12,
      research: 3,
    });
  });

  it('gives unnamed teams nothing when the named ones take every stream', () => {
    expect(teamStreamShares(streams({ firmStreams: 11, reserve: 1, teamShares: { a: 10 } }), ['a', 'b'])).toEqual({
      a: 10,
      b: 0,
    });
  });
});

describe('StreamsSchema', () => {
  const problems = (exchange: Record<string, unknown>) =>
    StreamsSchema.safeParse({ exchange }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

  it('refuses shares that sum past what the teams may take', () => {
    expect(problems({ teamShares: { a: 10, b: 10 } })).toEqual([
      'exchange.teamShares: the shares sum to 20, more than the 19 streams teams may take',
    ]);
  });

  it('refuses a reserve that leaves the teams nothing, and a renewal slower than half the holding expiry', () => {
    expect(problems({ firmStreams: 2, reserve: 2, holdingTtlMs: 1_000, renewEveryMs: 600 })).toEqual([
      'exchange.reserve: must leave teams at least one stream',
      'exchange.renewEveryMs: must be at most half of holdingTtlMs',
    ]);
  });

  it('refuses a reserve smaller than the market-data streams its symbols need (topics do not claim those streams)', () => {
    expect(problems({ reserve: 1, marketDataSymbols: 2_500 })).toEqual([
      'exchange.reserve: must cover the 3 market-data streams that 2500 symbols need',
    ]);
    expect(problems({ reserve: 0 })).toEqual([
      'exchange.reserve: must cover the 1 market-data streams that 1000 symbols need',
    ]);
  });
});
