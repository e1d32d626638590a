import { NotFoundError, PolymarketUS } from 'polymarket-us';

import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import { startTestSandbox } from './support/sandbox-harness.js';
import type { Json } from './support/stack.js';

// The official client against the sandbox's catalog origin: every catalog method it has, the
// fixture's data coming back. Market slugs are engine symbols, so the book is the engine's book.
const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const EVENT_SLUG = 'nfl-buf-kc-2026-11-22';
const SETTLED = 'aec-nba-bos-nyk-2026-11-20'; // INSTRUMENT_STATE_EXPIRED in the engine fixture

let sandbox: RunningSandbox;
let sdk: PolymarketUS;

beforeAll(async () => {
  // The suite checks shapes and reads faster than the catalog's 20 requests/s per address (tested in sandbox-catalog-rate).
  sandbox = await startTestSandbox({ catalog: { requestsPerSecondPerAddress: 'off' } });
  sdk = new PolymarketUS({
    keyId: 'unused',
    secretKey: 'unused',
    apiBaseUrl: sandbox.urls.retail,
    gatewayBaseUrl: sandbox.urls.catalog,
  });
  const engine = sandbox.state.engine;
  engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    account: 'firms/alpha/users/alice',
    orderQty: 10,
    price: 55,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  });
  engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_SELL',
    account: 'firms/beta/users/bob',
    orderQty: 7,
    price: 58,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  });
});
afterAll(() => sandbox.close());

describe('official SDK against the sandbox catalog', () => {
  it('lists events with the listing-only fields and filters by repeated keys', async () => {
    const all = (await sdk.events.list({ limit: 1000 })) as Json;
    expect(all.events.length).toBeGreaterThan(30);
    const some = (await sdk.events.list({
      slug: [EVENT_SLUG, 'nfl-dal-phi-2026-11-22'],
      orderBy: ['id'],
      orderDirection: 'desc',
    })) as Json;
    expect(some.events.map((e: Json) => e.slug)).toEqual(['nfl-dal-phi-2026-11-22', EVENT_SLUG]);
    const [event] = some.events;
    expect(event).toMatchObject({ eventWeek: expect.any(Number), gameStatus: expect.any(String) });
    expect(event.markets[0]).not.toHaveProperty('spreadTotalSuffix');
    expect(event.markets[0].subject).not.toHaveProperty('slug');
    expect(event.eventState).not.toHaveProperty('baseballState');
    expect(event.tags[0]).toMatchObject({ forceShow: false, isCarousel: false, createdBy: expect.any(Number) });
    const page = (await sdk.events.list({ limit: 2, offset: 1, active: true })) as Json;
    expect(page.events).toHaveLength(2);
  });

  it('gets one event by id and by slug with every market, tag, team and game state', async () => {
    const bySlug = (await sdk.events.retrieveBySlug(EVENT_SLUG)) as Json;
    const byId = (await sdk.events.retrieve(Number(bySlug.event.id))) as Json;
    expect(byId).toEqual(bySlug);
    const { event } = bySlug;
    expect(event).not.toHaveProperty('eventWeek');
    expect(event.markets).toHaveLength(1);
    expect(event.markets[0]).toMatchObject({
      slug: SYMBOL,
      spreadTotalSuffix: '',
      bestBid: 0.55,
      bestAsk: 0.58,
      sportsMarketTypeV2: 'SPORTS_MARKET_TYPE_MONEYLINE',
    });
    expect(event.markets[0].marketSides).toHaveLength(2);
    expect(event.teams.map((t: Json) => t.abbreviation)).toEqual(['KC', 'BUF']);
    expect(event.eventState).toHaveProperty('baseballState');
    expect(event.metadata.latestGameUpdate).toMatchObject({ eventId: Number(event.id) });
  });

  it('lists markets and gets one by id and by slug', async () => {
    const listed = (await sdk.markets.list({ eventSlug: [EVENT_SLUG] })) as Json;
    expect(listed.markets.map((m: Json) => m.slug)).toEqual([SYMBOL]);
    const bySlug = (await sdk.markets.retrieveBySlug(SYMBOL)) as Json;
    const byId = (await sdk.markets.retrieve(Number(bySlug.market.id))) as Json;
    expect(byId.market.slug).toBe(SYMBOL);
    expect(bySlug.market).toMatchObject({ eventSlug: EVENT_SLUG, outcome: 'KC', active: true });
  });

  it('serves the engine book and best prices in retail form', async () => {
    const book = await sdk.markets.book(SYMBOL);
    expect(book).toMatchObject({
      marketSlug: SYMBOL,
      bids: [{ px: { value: '0.55', currency: 'USD' }, qty: '10' }],
      offers: [{ px: { value: '0.58', currency: 'USD' }, qty: '7' }],
      state: 'MARKET_STATE_OPEN',
    });
    const bbo = await sdk.markets.bbo(SYMBOL);
    expect(bbo).toMatchObject({
      marketSlug: SYMBOL,
      bestBid: { value: '0.55' },
      bestAsk: { value: '0.58' },
      bidDepth: 1,
      askDepth: 1,
    });
  });

  it('gives the settlement of a settled market and 404 for an unsettled one', async () => {
    const settlement = await sdk.markets.settlement(SETTLED);
    expect(settlement).toMatchObject({
      marketSlug: SETTLED,
      settlementPrice: { currency: 'USD' },
      settledAt: expect.any(String),
    });
    await expect(sdk.markets.settlement(SYMBOL)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists series and gets one', async () => {
    const { series } = (await sdk.series.list({ active: true, orderBy: ['id'] })) as Json;
    expect(series.length).toBe(10);
    const one = (await sdk.series.retrieve(series[0].id)) as Json;
    expect(one.series).toEqual(series[0]);
  });

  it('lists sports with their leagues and finds teams by provider id', async () => {
    const { sports } = (await sdk.sports.list()) as Json;
    expect(sports.map((s: Json) => s.slug)).toEqual(['football', 'basketball', 'hockey', 'soccer']);
    expect(sports[0].leagues.map((l: Json) => l.slug)).toEqual(['nfl', 'ncaaf']);
    const { teams } = (await sdk.sports.teams({ league: 'nfl' })) as Json;
    const ids = Object.keys(teams).slice(0, 2);
    const picked = (await sdk.sports.teams({ teamIds: ids, provider: 'PROVIDER_SANDBOX' })) as Json;
    expect(Object.keys(picked.teams).sort()).toEqual(ids.sort());
  });

  it('searches events by text and status', async () => {
    const { events } = (await sdk.search.query({ query: 'buf', status: 'active', limit: 50 })) as Json;
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e: Json) => `${e.title} ${e.slug}`.toLowerCase().includes('buf') && e.active)).toBe(true);
  });

  it('answers unknown ids with 404 {message}', async () => {
    await expect(sdk.events.retrieve(999_999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(sdk.markets.retrieveBySlug('no-such-market')).rejects.toThrow('market no-such-market not found');
  });
});

describe('sandbox catalog routes the SDK has no method for', () => {
  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(sandbox.urls.catalog + path);
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('serves a sport with its leagues and a league or series listing in sections', async () => {
    expect((await get('/v2/sports/football')).body.sport.leagues.map((l: Json) => l.slug)).toEqual(['nfl', 'ncaaf']);
    const league = await get('/v2/leagues/NFL/events?limit=3&section=trending');
    expect(league.body).toMatchObject({
      type: 'sport',
      typeTitle: 'Games',
      section: 'trending',
      sectionTitle: 'Trending',
      league: { slug: 'nfl' },
    });
    expect(league.body.events).toHaveLength(3);
    expect(league.body.events[0].tags[0]).toMatchObject({
      league: { slug: 'nfl' },
      sport: { slug: 'football' },
      parentId: expect.any(Number),
    });
    const futures = await get('/v2/leagues/nfl/events?type=futures');
    expect(futures.body.events.map((e: Json) => e.slug)).toEqual(['nfl-champion-2027']);
    const series = await get(`/v1/sports/11/events?excludeEventId=1001`);
    expect(series.body).toMatchObject({ type: 'sport', category: { sport: 'Football', series: '11' } });
    expect(series.body.events.some((e: Json) => e.id === '1001')).toBe(false);
  });

  it('counts requests per route and answers 503 while the catalogDown fault is set', async () => {
    const before = sandbox.state.counter('catalog.sports');
    await get('/v1/sports');
    expect(sandbox.state.counter('catalog.sports')).toBe(before + 1);
    sandbox.state.setFaults({ catalogDown: true });
    try {
      expect(await get('/v1/sports')).toEqual({ status: 503, body: { message: 'catalog gateway unavailable' } });
    } finally {
      sandbox.state.setFaults({ catalogDown: false });
    }
  });

  it('refuses malformed and unknown parameters with 400 {message}', async () => {
    expect(await get('/v1/events?limit=0')).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('query.limit') },
    });
    expect(await get('/v1/events?colour=red')).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('colour') },
    });
  });
});
