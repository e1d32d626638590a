import { SYMBOL, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, json } from './support/stack.js';

describe('exchange reference data, books and funding through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack();
  });
  afterAll(() => stack.close());

  const symbolsOf = async (request: object): Promise<string[]> => {
    const res = await post(stack, '/exchange/v1/refdata/instruments', request);
    expect(res.status).toBe(200);
    return ((await json(res)).instruments as { symbol: string }[]).map((i) => i.symbol);
  };

  it('lists every instrument in one default page of 50, as spec 2.5 records', async () => {
    const body = await json(await post(stack, '/exchange/v1/refdata/instruments', {}));
    expect(body.instruments).toHaveLength(32);
    expect(body).toMatchObject({ nextPageToken: '', eof: true });
    expect(body.instruments[0]).toMatchObject({
      symbol: SYMBOL,
      state: 'INSTRUMENT_STATE_OPEN',
      tickSize: 1,
      priceLimit: { low: '1', high: '99' },
      startDate: { year: 2026, month: 11, day: 8 },
      createTime: expect.stringMatching(/Z$/),
    });
  });

  it('pages with pageSize and pageToken until eof', async () => {
    const seen: string[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await json(
        await post(stack, '/exchange/v1/refdata/instruments', { pageSize: 10, ...(pageToken ? { pageToken } : {}) }),
      );
      seen.push(...page.instruments.map((i: { symbol: string }) => i.symbol));
      pages++;
      if (page.eof) break;
      pageToken = page.nextPageToken;
    }
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(32);
    expect((await post(stack, '/exchange/v1/refdata/instruments', { pageToken: 'bm9wZTox' })).status).toBe(400);
  });

  it('filters by symbols, product, states, tradability, series, category, clearing symbol and dates', async () => {
    expect(await symbolsOf({ symbols: [SYMBOL, 'aec-nba-lal-gsw-2026-11-21'] })).toEqual([
      SYMBOL,
      'aec-nba-lal-gsw-2026-11-21',
    ]);
    expect(await symbolsOf({ productId: 'aec-nhl' })).toHaveLength(5);
    expect(await symbolsOf({ states: ['INSTRUMENT_STATE_SUSPENDED', 'INSTRUMENT_STATE_HALTED'] })).toEqual([
      'aec-nfl-cin-cle-2026-11-22',
      'aec-nba-mia-orl-2026-11-22',
    ]);
    expect(await symbolsOf({ tradableFilter: 'TRADABLE_FILTER_TRADABLE' })).toHaveLength(32);
    expect(await symbolsOf({ tradableFilter: 'TRADABLE_FILTER_NON_TRADABLE' })).toHaveLength(0);
    expect(await symbolsOf({ eventSeries: 'epl' })).toHaveLength(4);
    expect(await symbolsOf({ eventCategory: 'SPORTS', clearingSym: 'aec-ncaaf-' })).toHaveLength(3);
    expect(await symbolsOf({ endTimeGte: '2026-11-29', endTimeLte: '2026-11-29', eventSeries: 'ncaaf' })).toHaveLength(
      3,
    );
    expect(await symbolsOf({ startTimeLte: '2026-11-05' })).toEqual(['aec-nhl-fla-tbl-2026-11-19']);
  });

  it('applies the documented whereClause subset, together with field filters', async () => {
    const where = "symbol LIKE 'aec-nfl-%' AND state = 'INSTRUMENT_STATE_OPEN'";
    expect(await symbolsOf({ filter: { whereClause: where } })).toHaveLength(9);
    const both = {
      whereClause: where,
      fieldFilters: [{ field: 'symbol', operator: 'FILTER_OPERATOR_LIKE', stringValue: '%-2026-11-26' }],
    };
    expect(await symbolsOf({ filter: both })).toEqual(['aec-nfl-nyg-dal-2026-11-26', 'aec-nfl-chi-det-2026-11-26']);
    expect(
      await symbolsOf({
        filter: {
          whereClause:
            "event_series = 'nba' AND clearing_house = 'SANDBOX-CLEARING' AND product_id = 'aec-nba' AND event_category = 'SPORTS' AND clearing_sym LIKE 'aec-nba-d%'",
        },
      }),
    ).toEqual(['aec-nba-den-phx-2026-11-22', 'aec-nba-dal-sas-2026-11-24']);
  });

  it('applies every field-filter operator', async () => {
    const only = (field: string, operator: string, value: object) =>
      symbolsOf({ productId: 'aec-nhl', filter: { fieldFilters: [{ field, operator, ...value }] } });
    expect(await only('symbol', 'FILTER_OPERATOR_EQ', { stringValue: 'aec-nhl-tor-mtl-2026-11-21' })).toEqual([
      'aec-nhl-tor-mtl-2026-11-21',
    ]);
    expect(await only('state', 'FILTER_OPERATOR_NE', { stringValue: 'INSTRUMENT_STATE_OPEN' })).toEqual([
      'aec-nhl-edm-cgy-2026-11-22',
      'aec-nhl-fla-tbl-2026-11-19',
    ]);
    expect(await only('expiration_date', 'FILTER_OPERATOR_LT', { stringValue: '2026-11-22' })).toEqual([
      'aec-nhl-fla-tbl-2026-11-19',
    ]);
    expect(await only('expirationDate', 'FILTER_OPERATOR_LE', { stringValue: '2026-11-22' })).toEqual([
      'aec-nhl-tor-mtl-2026-11-21',
      'aec-nhl-fla-tbl-2026-11-19',
    ]);
    expect(await only('expiration_date', 'FILTER_OPERATOR_GT', { stringValue: '2026-11-23' })).toEqual([
      'aec-nhl-vgk-col-2026-11-24',
    ]);
    expect(await only('tick_size', 'FILTER_OPERATOR_GE', { intValue: '1' })).toHaveLength(5);
    expect(await only('multiplier', 'FILTER_OPERATOR_GT', { doubleValue: 1.5 })).toHaveLength(0);
    expect(await only('symbol', 'FILTER_OPERATOR_LIKE', { stringValue: '%-bos-%' })).toEqual([
      'aec-nhl-nyr-bos-2026-11-22',
    ]);
    expect(
      await only('state', 'FILTER_OPERATOR_IN', {
        stringList: { values: ['INSTRUMENT_STATE_TERMINATED', 'INSTRUMENT_STATE_MATCH_AND_CLOSE_AUCTION'] },
      }),
    ).toHaveLength(2);
    expect(
      await only('state', 'FILTER_OPERATOR_NOT_IN', { stringList: { values: ['INSTRUMENT_STATE_OPEN'] } }),
    ).toHaveLength(2);
  });

  it('passes the upstream 400 through for a whereClause outside the documented subset or an unknown field', async () => {
    for (const filter of [
      { whereClause: "symbol = 'a' OR state = 'b'" },
      { whereClause: 'description = 1' },
      { fieldFilters: [{ field: 'colour', operator: 'FILTER_OPERATOR_EQ', stringValue: 'red' }] },
    ]) {
      const res = await post(stack, '/exchange/v1/refdata/instruments', { filter });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ code: 'UPSTREAM_BAD_REQUEST', upstream: { body: { code: 3 } } });
    }
  });

  it('lists symbols and metadata', async () => {
    const symbols = await json(await post(stack, '/exchange/v1/refdata/symbols', { eventSeries: 'nhl', pageSize: 2 }));
    expect(symbols).toEqual({
      symbols: ['aec-nhl-tor-mtl-2026-11-21', 'aec-nhl-nyr-bos-2026-11-22'],
      nextPageToken: expect.any(String),
      eof: false,
    });
    const metadata = await json(await post(stack, '/exchange/v1/refdata/metadata', { symbols: [SYMBOL] }));
    expect(metadata.metadata).toEqual([
      expect.objectContaining({
        symbol: SYMBOL,
        metadata: expect.objectContaining({ league: 'nfl' }),
        eventAttributes: expect.objectContaining({ eventDisplayName: 'BUF @ KC' }),
      }),
    ]);
    expect((await post(stack, '/exchange/v1/refdata/metadata', { symbols: ['nope'] })).status).toBe(404);
  });

  it('serves the default depth of 3, and the state an operator sets', async () => {
    const symbol = 'aec-nba-okc-min-2026-11-24';
    for (let px = 40; px < 45; px++)
      stack.sandbox.state.engine.insert({
        symbol,
        side: 'SIDE_BUY',
        orderQty: 1,
        price: px,
        account: 'firms/OTHERFIRM/users/carol',
      });
    const book = await json(await api(stack)(`/exchange/v1/orderbook/${symbol}`));
    expect(book.bids.map((level: { px: string }) => level.px)).toEqual(['44', '43', '42']);
    expect((await json(await api(stack)(`/exchange/v1/orderbook/${symbol}?depth=10`))).bids).toHaveLength(5);
    const halted = await fetch(`${stack.sandbox.urls.exchange}/_sandbox/instruments/${symbol}/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'INSTRUMENT_STATE_HALTED' }),
    });
    expect(halted.status).toBe(200);
    expect((await json(await api(stack)(`/exchange/v1/orderbook/${symbol}/bbo`))).state).toBe(
      'INSTRUMENT_STATE_HALTED',
    );
    expect(await symbolsOf({ states: ['INSTRUMENT_STATE_HALTED'] })).toContain(symbol);
  });

  it('answers 404 for the book of a symbol the exchange does not list, without asking for the book', async () => {
    const books = stack.sandbox.state.counter('exchange.calls.orderBook');
    const res = await api(stack)('/exchange/v1/orderbook/aec-nfl-nobody-2026-01-01');
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({
      code: 'NOT_FOUND',
      detail: expect.stringContaining('aec-nfl-nobody-2026-01-01'),
    });
    expect(stack.sandbox.state.counter('exchange.calls.orderBook')).toBe(books);
  });

  it('lists funding accounts and credits deposits to the balance', async () => {
    const { accounts } = await json(await api(stack)('/exchange/v1/funding/accounts'));
    expect(accounts.map((a: { processor: string }) => a.processor)).toEqual(['checkout', 'processor-a']);
    const deposit = await post(stack, '/exchange/v1/checkout/deposits', { amount: '10000', currency: 'USD' });
    expect(deposit.status).toBe(200);
    expect(await json(deposit)).toMatchObject({
      deposit: { processor: 'checkout', amount: '10000', status: 'DEPOSIT_STATUS_COMPLETED' },
      balance: { account: PARTICIPANT, currentBalance: '10000' },
    });
    expect((await post(stack, '/exchange/v1/processor-a/deposits', { amount: '500' })).status).toBe(200);
    expect((await json(await post(stack, '/exchange/v1/positions/balance', {}))).balance.currentBalance).toBe('10500');
    expect((await post(stack, '/exchange/v1/checkout/deposits', { amount: '-5' })).status).toBe(400);
  });

  it('answers 404 for a deposit processor the exchange does not have, before anything is sent', async () => {
    const before = upstreamCalls(stack);
    const res = await post(stack, '/exchange/v1/aeropay/deposits', { amount: '100' });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ code: 'NOT_FOUND' });
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('serves identity and health through the same services', async () => {
    expect(await json(await api(stack)('/exchange/v1/whoami'))).toMatchObject({ firm: 'TESTFIRM' });
    expect((await json(await api(stack)('/exchange/v1/users'))).users).toHaveLength(2);
    expect((await api(stack)('/exchange/v1/health')).status).toBe(200);
  });
});
