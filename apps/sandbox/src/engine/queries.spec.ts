import { ALICE, ask, bid, BOB, CAROL, ManualClock, OTHER_SYMBOL, SYMBOL } from './engine.harness.js';
import { EngineErrorCode } from './engine.error.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let clock: ManualClock;
  let sut: MatchingEngine;

  beforeEach(() => {
    clock = new ManualClock();
    sut = new MatchingEngine({ clock: clock.read });
  });

  describe('order search', () => {
    let ids: string[];

    beforeEach(() => {
      ids = [
        sut.insert(bid(ALICE, 1, 40, { clordId: 'a-1', parentOrderId: 'p-1' })).orderId,
        sut.insert(ask(BOB, 2, 60)).orderId,
        sut.insert(bid(ALICE, 1, 41, { symbol: OTHER_SYMBOL, type: 'ORDER_TYPE_STOP_LIMIT', stopPrice: 45 })).orderId,
      ];
      clock.advance(60_000);
      ids.push(sut.insert(bid(CAROL, 2, 60)).orderId);
    });

    it.each([
      ['orderId', () => ({ orderId: ids[1] }), [1]],
      ['clordId', () => ({ clordId: 'a-1' }), [0]],
      ['symbol', () => ({ symbol: OTHER_SYMBOL }), [2]],
      ['accounts', () => ({ accounts: [BOB, CAROL] }), [1, 3]],
      ['side', () => ({ side: 'SIDE_SELL' as const }), [1]],
      ['type', () => ({ type: 'ORDER_TYPE_STOP_LIMIT' as const }), [2]],
      ['parentOrderId', () => ({ parentOrderId: 'p-1' }), [0]],
      ['open state', () => ({ orderStateFilter: 'ORDER_STATE_FILTER_OPEN' as const }), [0, 2]],
      ['closed state', () => ({ orderStateFilter: 'ORDER_STATE_FILTER_CLOSED' as const }), [1, 3]],
      ['filled state', () => ({ orderStateFilter: 'ORDER_STATE_FILTER_FILLED' as const }), [1, 3]],
      ['new state', () => ({ orderStateFilter: 'ORDER_STATE_FILTER_NEW' as const }), [0, 2]],
      ['time range', () => ({ startTime: clock.now - 1000, endTime: clock.now }), [3]],
      [
        'trade date',
        () => ({
          startTransactTradeDate: { year: 2026, month: 11, day: 22 },
          endTransactTradeDate: { year: 2026, month: 11, day: 22 },
        }),
        [0, 1, 2, 3],
      ],
    ])('filters by %s', (_, query, expected) => {
      expect(sut.searchOrders(query()).order.map((order) => order.id)).toEqual(expected.map((i) => ids[i]));
    });

    it('pages with an opaque token until the token comes back empty', () => {
      const first = sut.searchOrders({ pageSize: 3 });
      const second = sut.searchOrders({ pageSize: 3, pageToken: first.nextPageToken });

      expect(first.order.map((o) => o.id)).toEqual(ids.slice(0, 3));
      expect(first.nextPageToken).not.toBe('');
      expect(second).toMatchObject({ order: [{ id: ids[3] }], nextPageToken: '' });
    });

    it('refuses a token it did not issue', () => {
      expect(() => sut.searchOrders({ pageToken: 'garbage' })).toThrow(
        expect.objectContaining({ code: EngineErrorCode.INVALID_PAGE_TOKEN }),
      );
    });

    it('adds the last execution of each order on request', () => {
      const result = sut.searchOrders({ accounts: [BOB], withLastExecution: true });

      expect(result.lastExecutions.map((e) => [e.order.id, e.type])).toEqual([[ids[1], 'EXECUTION_TYPE_FILL']]);
    });

    it("lists an account's open orders", () => {
      expect(sut.openOrders(ALICE).map((o) => o.id)).toEqual([ids[0], ids[2]]);
      expect(sut.openOrders(ALICE, [SYMBOL]).map((o) => o.id)).toEqual([ids[0]]);
    });

    it('lists trades by account and pages them', () => {
      sut.insert(ask(BOB, 1, 39));

      const page = sut.trades({ accounts: [ALICE], pageSize: 1 });

      expect(page.trades).toMatchObject([
        { px: 40, qty: 1, buyAccount: ALICE, sellAccount: BOB, aggressorSide: 'SIDE_SELL' },
      ]);
      expect(page.nextPageToken).toBe('');
    });
  });

  describe('trade list paging', () => {
    it("pages one symbol's trades and refuses another list's token", () => {
      for (const px of [40, 41]) {
        sut.insert(ask(BOB, 1, px));
        sut.insert(bid(ALICE, 1, px));
      }

      const first = sut.trades({ symbol: SYMBOL, pageSize: 1 });
      const second = sut.trades({ symbol: SYMBOL, pageSize: 1, pageToken: first.nextPageToken });

      expect([first.trades[0].px, second.trades[0].px, second.nextPageToken]).toEqual([40, 41, '']);
      expect(() => sut.trades({ symbol: OTHER_SYMBOL, pageToken: first.nextPageToken })).toThrow(
        expect.objectContaining({ code: EngineErrorCode.INVALID_PAGE_TOKEN }),
      );
      expect(() => sut.searchOrders({ pageToken: first.nextPageToken })).toThrow(
        expect.objectContaining({ code: EngineErrorCode.INVALID_PAGE_TOKEN }),
      );
    });
  });

  describe('trade statistics', () => {
    it('summarizes a range and splits it into equal buckets', () => {
      const start = clock.now;
      for (const [advance, px, qty] of [
        [0, 40, 1],
        [10_000, 45, 2],
        [20_000, 42, 3],
        [5_000, 50, 4],
      ]) {
        clock.advance(advance);
        sut.insert(ask(BOB, qty, px));
        sut.insert(bid(ALICE, qty, px));
      }

      const result = sut.tradeStats({ symbol: SYMBOL, startTime: start, endTime: start + 40_000, bars: 4 });

      expect(result.stats).toEqual({
        first: '40',
        last: '50',
        high: '50',
        low: '40',
        totalTradeCount: '4',
        clearedTradeCount: '4',
        volume: '10',
        clearedVolume: '10',
        notional: '456',
        clearedNotional: '456',
      });
      expect(result.bars.map((bar) => [bar.totalTradeCount, bar.volume, bar.first, bar.last])).toEqual([
        ['1', '1', '40', '40'],
        ['1', '2', '45', '45'],
        ['0', '0', '0', '0'],
        ['2', '7', '42', '50'],
      ]);
      expect(result.barStartTime).toEqual([start, start + 10_000, start + 20_000, start + 30_000]);
      expect(result.barEndTime[3]).toBe(start + 40_000);
    });

    it('refuses an end before the start', () => {
      expect(() => sut.tradeStats({ startTime: 10, endTime: 5 })).toThrow(
        expect.objectContaining({ code: EngineErrorCode.INVALID_REQUEST }),
      );
    });
  });

  describe('book snapshots', () => {
    beforeEach(() => {
      for (const px of [40, 42, 41, 38, 39]) sut.insert(bid(ALICE, px - 37, px));
      sut.insert(bid(CAROL, 1, 42));
      for (const px of [60, 55, 58, 57]) sut.insert(ask(BOB, 1, px));
    });

    it('aggregates by price, bids descending and offers ascending, to the asked depth', () => {
      const book = sut.book(SYMBOL, 3);

      expect(book.bids).toEqual([
        { px: 42, qty: 6 },
        { px: 41, qty: 4 },
        { px: 40, qty: 3 },
      ]);
      expect(book.offers.map((level) => level.px)).toEqual([55, 57, 58]);
      expect(book).toMatchObject({ symbol: SYMBOL, state: 'INSTRUMENT_STATE_OPEN', transactTime: clock.now });
    });

    it('defaults to a depth of 3 and reports session statistics', () => {
      sut.insert(bid(CAROL, 2, 55));

      const book = sut.book(SYMBOL);

      expect(book.offers).toHaveLength(3);
      expect(book.stats).toMatchObject({
        openPx: 55,
        lastTradePx: 55,
        highPx: 55,
        lowPx: 55,
        sharesTraded: 1,
        notionalTraded: 55,
        openInterest: 1,
      });
    });

    it('gives the best bid and offer', () => {
      expect(sut.bbo(SYMBOL)).toMatchObject({
        bestBid: { px: 42, qty: 6 },
        bestAsk: { px: 55, qty: 1 },
        bidDepth: 5,
        askDepth: 4,
      });
    });

    it('refuses an unknown symbol', () => {
      expect(() => sut.book('aec-nope')).toThrow(expect.objectContaining({ code: EngineErrorCode.UNKNOWN_SYMBOL }));
    });
  });
});
