import { ALICE, ANNA, ask, bid, BOB, ManualClock, SYMBOL } from './engine.harness.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let sut: MatchingEngine;

  beforeEach(() => {
    sut = new MatchingEngine({ clock: new ManualClock().read });
  });

  describe('self-match prevention', () => {
    it('rejects the aggressor by default when it would meet its own firm first', () => {
      const resting = sut.insert(ask(ALICE, 5, 45)).orderId;

      const result = sut.insert(bid(ANNA, 5, 45));

      expect(result.executions[0]).toMatchObject({ type: 'EXECUTION_TYPE_REJECTED', orderRejectReason: 'ORD_REJECT_REASON_SELF_MATCH' });
      expect(result.order.selfMatchPreventionInstruction).toBe('SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR');
      expect(sut.order(resting)?.state).toBe('ORDER_STATE_NEW');
    });

    it('cancels the rest of a REJECT_AGGRESSOR order that meets its own firm after trading', () => {
      sut.insert(ask(BOB, 2, 44));
      const own = sut.insert(ask(ALICE, 5, 45)).orderId;

      const result = sut.insert(bid(ANNA, 5, 45));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_CANCELED', cumQty: 2 });
      expect(result.executions.at(-1)?.unsolicitedCancelReason).toBe('UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION');
      expect(sut.order(own)?.state).toBe('ORDER_STATE_NEW');
    });

    it('cancels the resting own-firm order and trades on with CANCEL_RESTING', () => {
      const own = sut.insert(ask(ALICE, 5, 45)).orderId;
      sut.insert(ask(BOB, 5, 45));

      const result = sut.insert(bid(ANNA, 5, 45, { selfMatchPreventionInstruction: 'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING' }));

      expect(result.order.state).toBe('ORDER_STATE_FILLED');
      expect(sut.order(own)?.state).toBe('ORDER_STATE_CANCELED');
      expect(sut.lastExecution(own)?.unsolicitedCancelReason).toBe('UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION');
    });

    it('cancels both orders with REMOVE_BOTH', () => {
      const own = sut.insert(ask(ALICE, 5, 45)).orderId;
      sut.insert(ask(BOB, 5, 45));

      const result = sut.insert(bid(ANNA, 5, 45, { selfMatchPreventionInstruction: 'SELF_MATCH_PREVENTION_INSTRUCTION_REMOVE_BOTH' }));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_CANCELED', cumQty: 0 });
      expect(sut.order(own)?.state).toBe('ORDER_STATE_CANCELED');
      expect(sut.book(SYMBOL).offers).toEqual([{ px: 45, qty: 5 }]);
    });

    it('lets orders of different firms trade', () => {
      sut.insert(ask(ALICE, 5, 45));

      expect(sut.insert(bid(BOB, 5, 45)).order.state).toBe('ORDER_STATE_FILLED');
    });

    it('treats a retail account without a firm path as its own firm', () => {
      sut.insert(ask('key-1', 5, 45));

      expect(sut.insert(bid('key-1', 5, 45)).executions[0].orderRejectReason).toBe('ORD_REJECT_REASON_SELF_MATCH');
      expect(sut.insert(bid('key-2', 5, 45)).order.state).toBe('ORDER_STATE_FILLED');
    });
  });
});
