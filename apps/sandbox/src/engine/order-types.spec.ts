import { ALICE, ask, bid, BOB, CAROL, ManualClock, SYMBOL } from './engine.harness.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let clock: ManualClock;
  let sut: MatchingEngine;

  beforeEach(() => {
    clock = new ManualClock();
    sut = new MatchingEngine({ clock: clock.read });
  });

  describe('limit orders', () => {
    it('rests a limit order that does not cross and acknowledges it with a NEW execution', () => {
      const result = sut.insert(bid(ALICE, 10, 40));

      expect(result.executions.map((e) => e.type)).toEqual(['EXECUTION_TYPE_NEW']);
      expect(result.order).toMatchObject({
        state: 'ORDER_STATE_NEW',
        leavesQty: 10,
        cumQty: 0,
        symbol: SYMBOL,
        participant: ALICE,
      });
      expect(sut.book(SYMBOL).bids).toEqual([{ px: 40, qty: 10 }]);
    });

    it('trades at the resting prices, oldest order first within a price, and rounds avgPx', () => {
      const first = sut.insert(ask(ALICE, 5, 45)).orderId;
      const second = sut.insert(ask(CAROL, 5, 45)).orderId;
      sut.insert(ask(CAROL, 5, 44));

      const result = sut.insert(bid(BOB, 8, 50));

      const fills = result.executions.filter((e) => e.lastShares > 0).map((e) => [e.lastShares, e.lastPx]);
      expect(fills).toEqual([
        [5, 44],
        [3, 45],
      ]);
      expect(sut.order(first)).toMatchObject({ state: 'ORDER_STATE_PARTIALLY_FILLED', leavesQty: 2 });
      expect(sut.order(second)).toMatchObject({ state: 'ORDER_STATE_NEW', leavesQty: 5 });
      expect(result.order).toMatchObject({ state: 'ORDER_STATE_FILLED', cumQty: 8, avgPx: 44, leavesQty: 0 });
    });

    it('rests the remainder of a partly filled limit order at its own price', () => {
      sut.insert(ask(ALICE, 3, 45));

      const result = sut.insert(bid(BOB, 10, 46));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_PARTIALLY_FILLED', cumQty: 3, leavesQty: 7 });
      expect(sut.book(SYMBOL)).toMatchObject({ bids: [{ px: 46, qty: 7 }], offers: [] });
    });

    it('marks aggressor and resting executions and shares one trade id', () => {
      const resting = sut.insert(ask(ALICE, 5, 45)).orderId;

      const fill = sut.insert(bid(BOB, 5, 45)).executions[1];

      const restingFill = sut.lastExecution(resting);
      expect(fill).toMatchObject({ type: 'EXECUTION_TYPE_FILL', aggressor: true, lastShares: 5, lastPx: 45 });
      expect(restingFill).toMatchObject({ type: 'EXECUTION_TYPE_FILL', aggressor: false, tradeId: fill.tradeId });
      expect(fill.transactTradeDate).toEqual({ year: 2026, month: 11, day: 22 });
    });

    it("keeps each execution's order as it was at that moment", () => {
      const result = sut.insert(bid(ALICE, 2, 40));
      sut.insert(ask(BOB, 1, 40));
      sut.insert(ask(BOB, 1, 40));

      expect(result.executions[0].order).toMatchObject({ state: 'ORDER_STATE_NEW', cumQty: 0 });
      expect(sut.lastExecution(result.orderId)?.order).toMatchObject({
        state: 'ORDER_STATE_FILLED',
        cumQty: 2,
        avgPx: 40,
      });
    });
  });

  describe('market-to-limit orders', () => {
    it('sweeps the best prices and rests the remainder as a limit at the last fill price', () => {
      sut.insert(ask(ALICE, 2, 45));
      sut.insert(ask(CAROL, 3, 47));

      const result = sut.insert(bid(BOB, 10, 0, { type: 'ORDER_TYPE_MARKET_TO_LIMIT' }));

      expect(result.order).toMatchObject({ cumQty: 5, leavesQty: 5, price: 47, state: 'ORDER_STATE_PARTIALLY_FILLED' });
      expect(sut.book(SYMBOL).bids).toEqual([{ px: 47, qty: 5 }]);
    });

    it('is rejected when there is nothing to take', () => {
      const result = sut.insert(bid(BOB, 10, 0, { type: 'ORDER_TYPE_MARKET_TO_LIMIT' }));

      expect(result.executions[0]).toMatchObject({
        type: 'EXECUTION_TYPE_REJECTED',
        orderRejectReason: 'ORD_REJECT_REASON_NO_LIQUIDITY',
      });
    });

    it('buys as many contracts as a cash amount pays for and cancels the rest', () => {
      sut.insert(ask(ALICE, 2, 40));
      sut.insert(ask(CAROL, 10, 50));

      const result = sut.insert(bid(BOB, 0, 0, { type: 'ORDER_TYPE_MARKET_TO_LIMIT', cashOrderQty: 230 }));

      expect(result.order).toMatchObject({
        orderQty: 5,
        cumQty: 5,
        state: 'ORDER_STATE_FILLED',
        timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      });
      expect(sut.balance(BOB).currentBalance).toBe(-230);
    });
  });

  describe('stop orders', () => {
    it('holds a buy stop off the book until a trade at or above its stop price, then trades as market-to-limit', () => {
      sut.insert(ask(CAROL, 10, 55));
      const stop = sut.insert(bid(BOB, 4, 0, { type: 'ORDER_TYPE_STOP', stopPrice: 52 })).orderId;
      expect(sut.book(SYMBOL).bids).toEqual([]);

      sut.insert(ask(ALICE, 1, 52));
      sut.insert(bid(CAROL, 1, 52));

      expect(sut.order(stop)).toMatchObject({ state: 'ORDER_STATE_FILLED', avgPx: 55, cumQty: 4 });
    });

    it('turns a triggered sell stop-limit into a limit order at its price', () => {
      sut.insert(ask(CAROL, 1, 48));
      const stop = sut.insert(ask(BOB, 4, 47, { type: 'ORDER_TYPE_STOP_LIMIT', stopPrice: 48 })).orderId;

      sut.insert(bid(ALICE, 1, 48));

      expect(sut.order(stop)).toMatchObject({ state: 'ORDER_STATE_NEW', price: 47 });
      expect(sut.book(SYMBOL).offers).toEqual([{ px: 47, qty: 4 }]);
    });

    it('refuses a stop the last trade has already triggered', () => {
      sut.insert(ask(CAROL, 1, 50));
      sut.insert(bid(ALICE, 1, 50));

      const result = sut.insert(bid(BOB, 1, 0, { type: 'ORDER_TYPE_STOP', stopPrice: 49 }));

      expect(result.executions[0].orderRejectReason).toBe('ORD_REJECT_REASON_INVALID_STOP_PRICE');
    });

    it('lets a stop fired by a stop fire the next one', () => {
      sut.insert(ask(CAROL, 1, 50));
      sut.insert(ask(CAROL, 1, 51));
      sut.insert(ask(CAROL, 1, 52));
      const first = sut.insert(bid(BOB, 1, 0, { type: 'ORDER_TYPE_STOP', stopPrice: 50 })).orderId;
      const second = sut.insert(bid(BOB, 1, 0, { type: 'ORDER_TYPE_STOP', stopPrice: 51 })).orderId;

      sut.insert(bid(ALICE, 1, 50));

      expect(sut.order(first)).toMatchObject({ state: 'ORDER_STATE_FILLED', avgPx: 51 });
      expect(sut.order(second)).toMatchObject({ state: 'ORDER_STATE_FILLED', avgPx: 52 });
    });
  });
});
