import { RiskLimits } from './risk-limits.js';

describe(RiskLimits.name, () => {
  const sut = new RiskLimits([
    { scope: 'firm', maxOrderQty: 1000, maxOpenOrders: 500 },
    { scope: 'team', id: 'trading', maxOrderQty: 100, maxOpenOrders: 50 },
    { scope: 'team', id: 'trading', market: 'aec-nfl-*', maxOrderQty: 10 },
    { scope: 'client', id: 'bot', market: 'aec-nba-lal-bos', maxOrderQty: 5 },
    { scope: 'team', id: 'other', maxOrderQty: 1 },
  ]);
  const bot = { id: 'bot', team: 'trading' };

  it('takes the most restrictive limit that applies, and names its scope', () => {
    expect(sut.binding('maxOrderQty', bot, 'aec-mlb-x')).toEqual({ value: 100, scope: 'team:trading' });
    expect(sut.binding('maxOrderQty', bot, 'aec-nfl-buf-kc')).toEqual({
      value: 10,
      scope: 'team:trading',
      market: 'aec-nfl-*',
    });
    expect(sut.binding('maxOrderQty', bot, 'aec-nba-lal-bos')).toEqual({
      value: 5,
      scope: 'client:bot',
      market: 'aec-nba-lal-bos',
    });
    expect(sut.binding('maxOrderQty', { id: 'x', team: 'platform' }, 'aec-nfl-buf-kc')).toEqual({
      value: 1000,
      scope: 'firm',
    });
    expect(sut.binding('maxOrderNotional', bot, 'aec-mlb-x')).toBeUndefined();
  });

  it('counts open orders under each scope that binds the client', () => {
    expect(sut.openOrderScopes(bot, 'aec-mlb-x').map((s) => [s.key, s.max])).toEqual([
      ['firm', 500],
      ['team:trading', 50],
    ]);
  });

  it('applies a limit narrowed to an event to every market of the event, by the event the caller looked up', () => {
    const events = new RiskLimits([
      { scope: 'client', id: 'bot', event: 'nba-mil-phi', maxOrderQty: 20, maxOpenOrders: 2, maxNetPosition: 7 },
    ]);
    expect(events.namesEvents).toBe(true);
    expect(sut.namesEvents).toBe(false);
    for (const market of ['aec-nba-mil-phi', 'aec-props-giannis'])
      expect(events.binding('maxOrderQty', bot, market, 'nba-mil-phi')).toEqual({
        value: 20,
        scope: 'client:bot',
        event: 'nba-mil-phi',
      });
    expect(events.binding('maxOrderQty', bot, 'aec-nba-mil-phi', undefined)).toBeUndefined();
    expect(events.binding('maxOrderQty', bot, 'aec-nba-mil-phi', 'other-event')).toBeUndefined();
    // One count for the event, whichever of its markets the order is in.
    expect(events.openOrderScopes(bot, 'aec-props-giannis', 'nba-mil-phi').map((s) => s.key)).toEqual([
      'client:bot@event:nba-mil-phi',
    ]);
    expect(events.exposureCounts(bot, 'aec-props-giannis', 'nba-mil-phi')).toEqual([
      {
        kind: 'position',
        key: 'position:client:bot@event:nba-mil-phi',
        max: 7,
        scope: 'client:bot',
        event: 'nba-mil-phi',
      },
    ]);
  });
});
