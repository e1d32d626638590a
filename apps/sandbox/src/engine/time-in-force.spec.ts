import { ALICE, ask, bid, BOB, CAROL, ManualClock, SYMBOL } from './engine.harness.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let clock: ManualClock;
  let sut: MatchingEngine;

  beforeEach(() => {
    clock = new ManualClock();
    sut = new MatchingEngine({ clock: clock.read });
  });

  describe('time in force', () => {
    it('expires DAY orders at the end of the day and keeps GOOD_TILL_CANCEL ones', () => {
      const day = sut.insert(bid(ALICE, 1, 40, { timeInForce: 'TIME_IN_FORCE_DAY' })).orderId;
      const gtc = sut.insert(bid(ALICE, 1, 41)).orderId;

      sut.endOfDay();

      expect(sut.order(day)?.state).toBe('ORDER_STATE_EXPIRED');
      expect(sut.lastExecution(day)?.type).toBe('EXECUTION_TYPE_EXPIRED');
      expect(sut.order(gtc)?.state).toBe('ORDER_STATE_NEW');
    });

    it('cancels what an IMMEDIATE_OR_CANCEL order cannot fill at once', () => {
      sut.insert(ask(BOB, 3, 45));

      const result = sut.insert(bid(ALICE, 5, 45, { timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' }));

      expect(result.executions.map((e) => e.type)).toEqual([
        'EXECUTION_TYPE_NEW',
        'EXECUTION_TYPE_PARTIAL_FILL',
        'EXECUTION_TYPE_CANCELED',
      ]);
      expect(result.order).toMatchObject({ state: 'ORDER_STATE_CANCELED', cumQty: 3, leavesQty: 0 });
      expect(sut.book(SYMBOL).bids).toEqual([]);
    });

    it('kills a FILL_OR_KILL order that cannot fill whole, without trading', () => {
      sut.insert(ask(BOB, 3, 45));

      const result = sut.insert(bid(ALICE, 5, 45, { timeInForce: 'TIME_IN_FORCE_FILL_OR_KILL' }));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_CANCELED', cumQty: 0 });
      expect(sut.book(SYMBOL).offers).toEqual([{ px: 45, qty: 3 }]);
    });

    it('fills a FILL_OR_KILL order across levels when the book holds enough', () => {
      sut.insert(ask(BOB, 3, 45));
      sut.insert(ask(CAROL, 3, 46));

      const result = sut.insert(bid(ALICE, 5, 46, { timeInForce: 'TIME_IN_FORCE_FILL_OR_KILL' }));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_FILLED', cumQty: 5 });
    });

    it('expires a GOOD_TILL_TIME order on tick once its time has come', () => {
      const id = sut.insert(
        bid(ALICE, 1, 40, { timeInForce: 'TIME_IN_FORCE_GOOD_TILL_TIME', goodTillTime: clock.now + 60_000 }),
      ).orderId;

      clock.advance(59_999);
      sut.tick();
      expect(sut.order(id)?.state).toBe('ORDER_STATE_NEW');
      clock.advance(1);
      sut.tick();

      expect(sut.order(id)?.state).toBe('ORDER_STATE_EXPIRED');
      expect(sut.book(SYMBOL).bids).toEqual([]);
    });

    it('expires a due GOOD_TILL_TIME order on the next access, before it can trade', () => {
      sut.insert(bid(ALICE, 1, 40, { timeInForce: 'TIME_IN_FORCE_GOOD_TILL_TIME', goodTillTime: clock.now + 1000 }));
      clock.advance(5000);

      const result = sut.insert(ask(BOB, 1, 40));

      expect(result.order.state).toBe('ORDER_STATE_NEW');
    });

    it('rejects a GOOD_TILL_TIME order whose time has passed or is missing', () => {
      const past = sut.insert(
        bid(ALICE, 1, 40, { timeInForce: 'TIME_IN_FORCE_GOOD_TILL_TIME', goodTillTime: clock.now }),
      );
      const missing = sut.insert(bid(ALICE, 1, 40, { timeInForce: 'TIME_IN_FORCE_GOOD_TILL_TIME' }));

      expect(past.executions[0].orderRejectReason).toBe('ORD_REJECT_REASON_INVALID_EXPIRE_TIME');
      expect(missing.executions[0].orderRejectReason).toBe('ORD_REJECT_REASON_INVALID_EXPIRE_TIME');
    });
  });

  describe('minQty and allOrNone', () => {
    it('cancels an order whose minQty is not available at once', () => {
      sut.insert(ask(BOB, 2, 45));

      const result = sut.insert(bid(ALICE, 10, 45, { minQty: 3 }));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_CANCELED', cumQty: 0 });
    });

    it('fills at least minQty on entry and rests the remainder', () => {
      sut.insert(ask(BOB, 4, 45));

      const result = sut.insert(bid(ALICE, 10, 45, { minQty: 3 }));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_PARTIALLY_FILLED', cumQty: 4, leavesQty: 6 });
    });

    it('rests an all-or-none order that cannot fill whole instead of filling part of it', () => {
      sut.insert(ask(BOB, 2, 45));

      const result = sut.insert(bid(ALICE, 5, 45, { allOrNone: true }));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_NEW', cumQty: 0, leavesQty: 5 });
    });

    it('passes over a resting all-or-none order too large for the aggressor and trades behind it', () => {
      const aon = sut.insert(ask(BOB, 10, 45, { allOrNone: true })).orderId;
      sut.insert(ask(CAROL, 3, 45));

      const result = sut.insert(bid(ALICE, 3, 45));

      expect(result.order.state).toBe('ORDER_STATE_FILLED');
      expect(sut.order(aon)?.cumQty).toBe(0);
    });

    it('fills a resting all-or-none order whole when the aggressor is large enough', () => {
      const aon = sut.insert(ask(BOB, 4, 45, { allOrNone: true })).orderId;

      sut.insert(bid(ALICE, 6, 45));

      expect(sut.order(aon)).toMatchObject({ state: 'ORDER_STATE_FILLED', cumQty: 4 });
    });
  });

  describe('participateDontInitiate', () => {
    it('rejects a post-only order that would trade at once', () => {
      sut.insert(ask(BOB, 2, 45));

      const result = sut.insert(bid(ALICE, 1, 45, { participateDontInitiate: true }));

      expect(result.executions[0]).toMatchObject({
        type: 'EXECUTION_TYPE_REJECTED',
        orderRejectReason: 'ORD_REJECT_REASON_WOULD_MATCH_IMMEDIATELY',
      });
    });

    it('rests a post-only order that does not cross', () => {
      sut.insert(ask(BOB, 2, 45));

      const result = sut.insert(bid(ALICE, 1, 44, { participateDontInitiate: true }));

      expect(result.order.state).toBe('ORDER_STATE_NEW');
    });
  });
});
