import { ALICE, ask, bid, BOB, CAROL, ManualClock, SYMBOL } from './engine.harness.js';
import { EngineErrorCode } from './engine.error.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let clock: ManualClock;
  let sut: MatchingEngine;

  beforeEach(() => {
    clock = new ManualClock();
    sut = new MatchingEngine({ clock: clock.read });
  });

  const withCode = (code: EngineErrorCode) => expect.objectContaining({ code });

  describe('cancel', () => {
    it('cancels by order id or by clordId and takes the order off the book', () => {
      const byId = sut.insert(bid(ALICE, 1, 40)).orderId;
      sut.insert(bid(ALICE, 2, 41, { clordId: 'mine-1' }));

      expect(sut.cancel({ orderId: byId, account: ALICE }).order.state).toBe('ORDER_STATE_CANCELED');
      expect(sut.cancel({ clordId: 'mine-1', account: ALICE }).type).toBe('EXECUTION_TYPE_CANCELED');
      expect(sut.book(SYMBOL).bids).toEqual([]);
    });

    it("reports an unknown order, or another account's, as not found", () => {
      const id = sut.insert(bid(ALICE, 1, 40)).orderId;

      expect(() => sut.cancel({ orderId: 'O999', account: ALICE })).toThrow(withCode(EngineErrorCode.ORDER_NOT_FOUND));
      expect(() => sut.cancel({ orderId: id, account: BOB })).toThrow(withCode(EngineErrorCode.ORDER_NOT_FOUND));
    });

    it('refuses to cancel a filled order', () => {
      const id = sut.insert(bid(ALICE, 1, 40)).orderId;
      sut.insert(ask(BOB, 1, 40));

      expect(() => sut.cancel({ orderId: id, account: ALICE })).toThrow(withCode(EngineErrorCode.ORDER_NOT_OPEN));
    });

    it("cancels all of an account's open orders, optionally on some symbols only", () => {
      const here = sut.insert(bid(ALICE, 1, 40)).orderId;
      const there = sut.insert(bid(ALICE, 1, 40, { symbol: 'aec-nfl-dal-phi-2026-11-22' })).orderId;
      sut.insert(bid(BOB, 1, 40));

      expect(sut.cancelAll(ALICE, [SYMBOL])).toEqual([here]);
      expect(sut.cancelAll(ALICE)).toEqual([there]);
      expect(sut.openOrders(BOB)).toHaveLength(1);
    });
  });

  describe('duplicate clordId', () => {
    it('refuses a clordId while the account has an open order with it; another account may use it', () => {
      sut.insert(bid(ALICE, 1, 40, { clordId: 'c-1' }));

      expect(() => sut.insert(bid(ALICE, 1, 40, { clordId: 'c-1' }))).toThrow(
        withCode(EngineErrorCode.DUPLICATE_CLORD_ID),
      );
      expect(sut.insert(bid(BOB, 1, 40, { clordId: 'c-1' })).order.state).toBe('ORDER_STATE_NEW');
    });

    it.each([
      ['canceled', (id: string) => sut.cancel({ orderId: id, account: ALICE })],
      ['filled', () => sut.insert(ask(BOB, 1, 40))],
    ])(
      'accepts the clordId of a %s order again as a new order, and a cancel by clordId then names the new one',
      (_state, finish) => {
        const first = sut.insert(bid(ALICE, 1, 40, { clordId: 'c-1' })).orderId;
        finish(first);

        const second = sut.insert(bid(ALICE, 1, 39, { clordId: 'c-1' }));

        expect(second.order).toMatchObject({ state: 'ORDER_STATE_NEW', clordId: 'c-1' });
        expect(second.orderId).not.toBe(first);
        expect(sut.cancel({ clordId: 'c-1', account: ALICE }).order.id).toBe(second.orderId);
      },
    );

    it('accepts the clordId of an immediate-or-cancel order that finished at once (a resend makes a second order)', () => {
      const ioc = { clordId: 'ioc-1', timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' } as const;
      const first = sut.insert(bid(ALICE, 1, 40, ioc));

      const resent = sut.insert(bid(ALICE, 1, 40, ioc));

      expect(first.order.state).toBe('ORDER_STATE_CANCELED');
      expect(resent.orderId).not.toBe(first.orderId);
    });

    it('frees the old clordId of an order a replace renamed', () => {
      const id = sut.insert(bid(ALICE, 1, 40, { clordId: 'old' })).orderId;
      sut.replace({ orderId: id, account: ALICE, clordId: 'new' });

      expect(sut.insert(bid(ALICE, 1, 41, { clordId: 'old' })).order.state).toBe('ORDER_STATE_NEW');
      expect(() => sut.insert(bid(ALICE, 1, 41, { clordId: 'new' }))).toThrow(
        withCode(EngineErrorCode.DUPLICATE_CLORD_ID),
      );
    });
  });

  describe('replace', () => {
    it('keeps queue priority when only the quantity shrinks', () => {
      const first = sut.insert(ask(ALICE, 5, 45)).orderId;
      sut.insert(ask(CAROL, 5, 45));

      const replaced = sut.replace({ orderId: first, account: ALICE, orderQty: 3 });
      sut.insert(bid(BOB, 3, 45));

      expect(replaced.executions[0]).toMatchObject({
        type: 'EXECUTION_TYPE_REPLACE',
        order: { orderQty: 3, leavesQty: 3 },
      });
      expect(sut.order(first)?.state).toBe('ORDER_STATE_FILLED');
      expect(sut.book(SYMBOL).offers).toEqual([{ px: 45, qty: 5 }]);
    });

    it('loses queue priority when the quantity grows', () => {
      const first = sut.insert(ask(ALICE, 5, 45)).orderId;
      const second = sut.insert(ask(CAROL, 5, 45)).orderId;
      clock.advance(1);

      sut.replace({ orderId: first, account: ALICE, orderQty: 6 });
      sut.insert(bid(BOB, 5, 45));

      expect(sut.order(second)?.state).toBe('ORDER_STATE_FILLED');
      expect(sut.order(first)).toMatchObject({ state: 'ORDER_STATE_NEW', leavesQty: 6, insertTime: clock.now });
    });

    it('loses queue priority when the price changes, and trades at once if the new price crosses', () => {
      sut.insert(ask(CAROL, 2, 45));
      const id = sut.insert(bid(ALICE, 5, 40)).orderId;

      const result = sut.replace({ orderId: id, account: ALICE, price: 45, clordId: 'new-clord' });

      expect(result.executions.map((e) => e.type)).toEqual(['EXECUTION_TYPE_REPLACE', 'EXECUTION_TYPE_PARTIAL_FILL']);
      expect(result.order).toMatchObject({ clordId: 'new-clord', cumQty: 2, leavesQty: 3, price: 45 });
      expect(sut.book(SYMBOL).bids).toEqual([{ px: 45, qty: 3 }]);
    });

    it('refuses invalid new terms and leaves the order unchanged', () => {
      const id = sut.insert(bid(ALICE, 5, 40)).orderId;
      sut.insert(ask(BOB, 2, 40));

      expect(() => sut.replace({ orderId: id, account: ALICE, price: 40.5 })).toThrow(
        expect.objectContaining({
          code: EngineErrorCode.INVALID_REQUEST,
          rejectReason: 'ORD_REJECT_REASON_INVALID_PRICE_INCREMENT',
        }),
      );
      expect(() => sut.replace({ orderId: id, account: ALICE, orderQty: 2 })).toThrow(
        expect.objectContaining({ rejectReason: 'ORD_REJECT_REASON_INVALID_QUANTITY' }),
      );
      expect(sut.order(id)).toMatchObject({ price: 40, orderQty: 5, leavesQty: 3 });
    });

    it('refuses a clordId already in use and a filled order', () => {
      sut.insert(bid(ALICE, 1, 30, { clordId: 'taken' }));
      const id = sut.insert(bid(ALICE, 1, 40)).orderId;

      expect(() => sut.replace({ orderId: id, account: ALICE, clordId: 'taken' })).toThrow(
        withCode(EngineErrorCode.DUPLICATE_CLORD_ID),
      );
      sut.insert(ask(BOB, 1, 40));
      expect(() => sut.replace({ orderId: id, account: ALICE, price: 41 })).toThrow(
        withCode(EngineErrorCode.ORDER_NOT_OPEN),
      );
    });
  });

  describe('replace of special orders', () => {
    it('keeps a replaced stop waiting, now for its new stop price', () => {
      sut.insert(ask(CAROL, 5, 60));
      const stop = sut.insert(bid(BOB, 1, 0, { type: 'ORDER_TYPE_STOP', stopPrice: 50 })).orderId;

      sut.replace({ orderId: stop, account: BOB, stopPrice: 55 });
      sut.insert(ask(CAROL, 1, 52));
      sut.insert(bid(ALICE, 1, 52));

      expect(sut.order(stop)).toMatchObject({ state: 'ORDER_STATE_NEW', stopPrice: 55, cumQty: 0 });
    });

    it('sends an order replaced to IMMEDIATE_OR_CANCEL back in, so it cancels instead of resting', () => {
      const id = sut.insert(bid(ALICE, 5, 40)).orderId;

      const result = sut.replace({ orderId: id, account: ALICE, timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' });

      expect(result.executions.map((e) => e.type)).toEqual(['EXECUTION_TYPE_REPLACE', 'EXECUTION_TYPE_CANCELED']);
      expect(sut.book(SYMBOL).bids).toEqual([]);
    });

    it('moves the expiry of an order replaced with a later goodTillTime', () => {
      const id = sut.insert(
        bid(ALICE, 1, 40, { timeInForce: 'TIME_IN_FORCE_GOOD_TILL_TIME', goodTillTime: clock.now + 1000 }),
      ).orderId;

      sut.replace({ orderId: id, account: ALICE, goodTillTime: clock.now + 5000 });
      clock.advance(2000);
      sut.tick();

      expect(sut.order(id)?.state).toBe('ORDER_STATE_NEW');
      clock.advance(3000);
      sut.tick();
      expect(sut.order(id)?.state).toBe('ORDER_STATE_EXPIRED');
    });
  });

  describe('batches', () => {
    it('answers each item of a batch on its own', () => {
      sut.insert(bid(ALICE, 1, 40, { clordId: 'dup' }));

      const results = sut.insertBatch([bid(ALICE, 1, 41), bid(ALICE, 1, 42, { clordId: 'dup' })]);

      expect(results[0]).toMatchObject({ ok: true, value: { order: { state: 'ORDER_STATE_NEW' } } });
      expect(results[1]).toMatchObject({ ok: false, error: { code: EngineErrorCode.DUPLICATE_CLORD_ID } });
    });

    it('refuses a batch of 21 requests', () => {
      const requests = Array.from({ length: 21 }, () => bid(ALICE, 1, 40));

      expect(() => sut.insertBatch(requests)).toThrow(withCode(EngineErrorCode.BATCH_TOO_LARGE));
      expect(sut.openOrders(ALICE)).toEqual([]);
    });

    it('replaces and cancels in batches', () => {
      const id = sut.insert(bid(ALICE, 1, 40)).orderId;

      const [replaced] = sut.replaceBatch([{ orderId: id, account: ALICE, price: 41 }]);
      const [canceled, missing] = sut.cancelBatch([
        { orderId: id, account: ALICE },
        { orderId: 'nope', account: ALICE },
      ]);

      expect(replaced.ok && replaced.value.order.price).toBe(41);
      expect(canceled.ok).toBe(true);
      expect(missing).toMatchObject({ ok: false, error: { code: EngineErrorCode.ORDER_NOT_FOUND } });
    });
  });
});
