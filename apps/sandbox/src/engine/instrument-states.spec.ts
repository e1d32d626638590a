import { ALICE, ask, bid, BOB, CAROL, ManualClock, PREOPEN_SYMBOL, SYMBOL } from './engine.harness.js';
import type { InstrumentState } from './engine.enums.js';
import { EngineErrorCode } from './engine.error.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let sut: MatchingEngine;

  beforeEach(() => {
    sut = new MatchingEngine({ clock: new ManualClock().read });
  });

  describe('instrument states', () => {
    const closedToEntry: InstrumentState[] = [
      'INSTRUMENT_STATE_SUSPENDED',
      'INSTRUMENT_STATE_HALTED',
      'INSTRUMENT_STATE_CLOSED',
      'INSTRUMENT_STATE_EXPIRED',
      'INSTRUMENT_STATE_TERMINATED',
      'INSTRUMENT_STATE_PENDING',
    ];

    it.each(closedToEntry)('refuses new orders while %s', (state) => {
      sut.setState(SYMBOL, state);

      expect(sut.insert(bid(ALICE, 1, 40)).executions[0].orderRejectReason).toBe('ORD_REJECT_REASON_EXCHANGE_CLOSED');
    });

    it('takes cancels but no replaces while SUSPENDED', () => {
      const first = sut.insert(bid(ALICE, 1, 40)).orderId;
      const second = sut.insert(bid(ALICE, 1, 40)).orderId;
      sut.setState(SYMBOL, 'INSTRUMENT_STATE_SUSPENDED');

      expect(() => sut.replace({ orderId: first, account: ALICE, price: 41 })).toThrow(
        expect.objectContaining({ code: EngineErrorCode.INSTRUMENT_STATE }),
      );
      expect(sut.cancel({ orderId: second, account: ALICE }).type).toBe('EXECUTION_TYPE_CANCELED');
    });

    it.each(['INSTRUMENT_STATE_HALTED', 'INSTRUMENT_STATE_CLOSED'] as const)('refuses cancels while %s', (state) => {
      const id = sut.insert(bid(ALICE, 1, 40)).orderId;
      sut.setState(SYMBOL, state);

      expect(() => sut.cancel({ orderId: id, account: ALICE })).toThrow(
        expect.objectContaining({ code: EngineErrorCode.INSTRUMENT_STATE }),
      );
      expect(sut.cancelAll(ALICE)).toEqual([]);
    });

    it('expires DAY orders but keeps good-till-cancel ones on CLOSED', () => {
      const day = sut.insert(bid(ALICE, 1, 40, { timeInForce: 'TIME_IN_FORCE_DAY' })).orderId;
      const gtc = sut.insert(bid(ALICE, 1, 40)).orderId;

      sut.setState(SYMBOL, 'INSTRUMENT_STATE_CLOSED');

      expect(sut.order(day)?.state).toBe('ORDER_STATE_EXPIRED');
      expect(sut.order(gtc)?.state).toBe('ORDER_STATE_NEW');
    });

    it('expires every resting and held order on EXPIRED', () => {
      const resting = sut.insert(bid(ALICE, 1, 40)).orderId;
      const stop = sut.insert(bid(ALICE, 1, 0, { type: 'ORDER_TYPE_STOP', stopPrice: 60 })).orderId;

      sut.setState(SYMBOL, 'INSTRUMENT_STATE_EXPIRED');

      expect([sut.order(resting)?.state, sut.order(stop)?.state]).toEqual([
        'ORDER_STATE_EXPIRED',
        'ORDER_STATE_EXPIRED',
      ]);
      expect(sut.openOrders(ALICE)).toEqual([]);
    });

    it('empties the book, closes positions at the settlement price and stays TERMINATED', () => {
      sut.insert(ask(BOB, 2, 40));
      sut.insert(bid(ALICE, 2, 40));
      const resting = sut.insert(bid(ALICE, 1, 30)).orderId;

      sut.setState(SYMBOL, 'INSTRUMENT_STATE_TERMINATED', { settlementPx: 100 });

      expect(sut.lastExecution(resting)?.unsolicitedCancelReason).toBe('UNSOLICITED_CXL_REASON_INSTRUMENT_TERMINATED');
      expect(sut.book(SYMBOL)).toMatchObject({
        bids: [],
        offers: [],
        state: 'INSTRUMENT_STATE_TERMINATED',
        stats: { settlementPx: 100 },
      });
      expect(sut.position(ALICE, SYMBOL)).toMatchObject({ netPosition: 0, realized: 120, expired: true });
      expect(sut.balance(ALICE).currentBalance).toBe(120);
      expect(sut.balance(BOB).currentBalance).toBe(-120);
      expect(() => sut.setState(SYMBOL, 'INSTRUMENT_STATE_OPEN')).toThrow(
        expect.objectContaining({ code: EngineErrorCode.INSTRUMENT_STATE }),
      );
    });
  });

  describe('auctions', () => {
    function crossedPreopenBook(): void {
      sut.insert(bid(ALICE, 10, 52, { symbol: PREOPEN_SYMBOL }));
      sut.insert(bid(ALICE, 5, 50, { symbol: PREOPEN_SYMBOL }));
      sut.insert(ask(BOB, 8, 48, { symbol: PREOPEN_SYMBOL }));
      sut.insert(ask(CAROL, 6, 51, { symbol: PREOPEN_SYMBOL }));
    }

    it('accepts crossing orders in PREOPEN without trading and shows the indicative open', () => {
      crossedPreopenBook();

      const book = sut.book(PREOPEN_SYMBOL);

      expect(book.bids[0]).toEqual({ px: 52, qty: 10 });
      expect(book.offers[0]).toEqual({ px: 48, qty: 8 });
      expect(book.stats).toMatchObject({ indicativeOpenPx: 51, sharesTraded: 0 });
    });

    it('refuses immediate and market orders in PREOPEN', () => {
      const ioc = sut.insert(
        bid(ALICE, 1, 40, { symbol: PREOPEN_SYMBOL, timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' }),
      );
      const market = sut.insert(bid(ALICE, 1, 0, { symbol: PREOPEN_SYMBOL, type: 'ORDER_TYPE_MARKET_TO_LIMIT' }));

      expect(ioc.executions[0].orderRejectReason).toBe('ORD_REJECT_REASON_INVALID_TIME_IN_FORCE');
      expect(market.executions[0].orderRejectReason).toBe('ORD_REJECT_REASON_INVALID_ORDER_TYPE');
    });

    it('uncrosses at the price executing the most volume on the move to OPEN', () => {
      crossedPreopenBook();

      sut.setState(PREOPEN_SYMBOL, 'INSTRUMENT_STATE_OPEN');

      const trades = sut.trades({ symbol: PREOPEN_SYMBOL }).trades;
      expect(trades.map((t) => [t.qty, t.px, t.aggressorSide])).toEqual([
        [8, 51, undefined],
        [2, 51, undefined],
      ]);
      expect(sut.book(PREOPEN_SYMBOL)).toMatchObject({
        bids: [{ px: 50, qty: 5 }],
        offers: [{ px: 51, qty: 4 }],
        stats: { openPx: 51 },
      });
    });

    it('does not auction when PREOPEN moves anywhere but OPEN', () => {
      crossedPreopenBook();

      sut.setState(PREOPEN_SYMBOL, 'INSTRUMENT_STATE_SUSPENDED');

      expect(sut.trades({ symbol: PREOPEN_SYMBOL }).trades).toEqual([]);
    });

    it('matches on the move out of MATCH_AND_CLOSE_AUCTION', () => {
      sut.setState(SYMBOL, 'INSTRUMENT_STATE_MATCH_AND_CLOSE_AUCTION');
      sut.insert(bid(ALICE, 3, 55));
      sut.insert(ask(BOB, 3, 53));
      expect(sut.trades().trades).toEqual([]);

      sut.setState(SYMBOL, 'INSTRUMENT_STATE_CLOSED');

      expect(sut.trades().trades.map((t) => [t.qty, t.px])).toEqual([[3, 53]]);
    });

    it('keeps orders of one participant and one self-match prevention id from trading in the auction', () => {
      sut.insert(bid(ALICE, 3, 52, { symbol: PREOPEN_SYMBOL, selfMatchPreventionId: 'desk-1' }));
      const later = sut.insert(ask(ALICE, 3, 50, { symbol: PREOPEN_SYMBOL, selfMatchPreventionId: 'desk-1' })).orderId;

      sut.setState(PREOPEN_SYMBOL, 'INSTRUMENT_STATE_OPEN');

      expect(sut.trades().trades).toEqual([]);
      expect(sut.order(later)?.state).toBe('ORDER_STATE_CANCELED');
    });
  });
});
