import { WhereClauseError, likeMatcher, parseWhereClause } from './where-clause.js';

describe(parseWhereClause.name, () => {
  it('reads the documented example', () => {
    expect(parseWhereClause("symbol LIKE 'aec-nfl-%' AND state = 'INSTRUMENT_STATE_OPEN'")).toEqual([
      { column: 'symbol', operator: 'LIKE', value: 'aec-nfl-%' },
      { column: 'state', operator: '=', value: 'INSTRUMENT_STATE_OPEN' },
    ]);
  });

  it('takes every documented column, keywords in any case, and quotes escaped by doubling', () => {
    const clause =
      "event_series = 'nfl' and event_category like 'SP%' AND clearing_sym='aec' AND clearing_house = 'O''Hare' AND product_id = 'aec-nfl'";
    expect(parseWhereClause(clause).map((c) => [c.column, c.operator, c.value])).toEqual([
      ['event_series', '=', 'nfl'],
      ['event_category', 'LIKE', 'SP%'],
      ['clearing_sym', '=', 'aec'],
      ['clearing_house', '=', "O'Hare"],
      ['product_id', '=', 'aec-nfl'],
    ]);
  });

  it('is empty for a blank clause', () => {
    expect(parseWhereClause('   ')).toEqual([]);
  });

  it.each([
    ["symbol = 'a' OR state = 'b'", /expected AND/],
    ["(symbol = 'a')", /unexpected "\("/],
    ["symbol != 'a'", /unexpected "!"/],
    ["symbol > 'a'", /unexpected ">"/],
    ['symbol = a', /expected a quoted string/],
    ["description = 'a'", /expected a column/],
    ["symbol = 'a' AND", /expected a column .* at the end/],
    ["symbol IN 'a'", /expected = or LIKE/],
    ["symbol = 'unterminated", /unterminated string/],
    ["symbol = 'a'; DROP TABLE instruments", /unexpected ";"/],
  ])('refuses %s', (clause, message) => {
    expect(() => parseWhereClause(clause)).toThrow(WhereClauseError);
    expect(() => parseWhereClause(clause)).toThrow(message);
  });
});

describe(likeMatcher.name, () => {
  it('treats % as any run and _ as one character, the rest literally, over the whole value', () => {
    expect(likeMatcher('aec-nfl-%')('aec-nfl-buf-kc-2026-11-22')).toBe(true);
    expect(likeMatcher('aec-nfl-%')('aec-nba-bos-nyk')).toBe(false);
    expect(likeMatcher('%kc%')('aec-nfl-buf-kc-2026-11-22')).toBe(true);
    expect(likeMatcher('a_c')('abc')).toBe(true);
    expect(likeMatcher('a.c')('abc')).toBe(false);
    expect(likeMatcher('aec')('aec-nfl')).toBe(false);
  });
});
