import { ALICE, ANNA, ask, bid, BOB, ManualClock, PREOPEN_SYMBOL, SYMBOL } from './engine.harness.js';
import { MatchingEngine } from './matching-engine.js';

// upstream-facts.md, "Order safety": prevention applies only between orders of one participant that
// carry the same selfMatchPreventionId; the incoming order's instruction decides who is canceled.
const SMP = { selfMatchPreventionId: 'desk-1' };
const CANCEL_RESTING = {
  ...SMP,
  selfMatchPreventionInstruction: 'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING',
} as const;
const REMOVE_BOTH = {
  ...SMP,
  selfMatchPreventionInstruction: 'SELF_MATCH_PREVENTION_INSTRUCTION_REMOVE_BOTH',
} as const;

describe(MatchingEngine.name, () => {
  let sut: MatchingEngine;

  beforeEach(() => {
    sut = new MatchingEngine({ clock: new ManualClock().read });
  });

  describe('self-match prevention', () => {
    it('rejects the aggressor by default when an id is given without an instruction and its own order comes first', () => {
      const resting = sut.insert(ask(ALICE, 5, 45, SMP)).orderId;

      const result = sut.insert(bid(ALICE, 5, 45, SMP));

      expect(result.executions[0]).toMatchObject({
        type: 'EXECUTION_TYPE_REJECTED',
        orderRejectReason: 'ORD_REJECT_REASON_SELF_MATCH',
      });
      expect(result.order.selfMatchPreventionInstruction).toBe('SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR');
      expect(sut.order(resting)?.state).toBe('ORDER_STATE_NEW');
    });

    it('cancels the rest of a REJECT_AGGRESSOR order that meets its own order after trading', () => {
      sut.insert(ask(BOB, 2, 44));
      const own = sut.insert(ask(ALICE, 5, 45, SMP)).orderId;

      const result = sut.insert(bid(ALICE, 5, 45, SMP));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_CANCELED', cumQty: 2 });
      expect(result.executions.at(-1)?.unsolicitedCancelReason).toBe('UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION');
      expect(sut.order(own)?.state).toBe('ORDER_STATE_NEW');
    });

    it('cancels the resting order of the same participant and id, and trades on, with CANCEL_RESTING', () => {
      const own = sut.insert(ask(ALICE, 5, 45, SMP)).orderId;
      sut.insert(ask(BOB, 5, 45));

      const result = sut.insert(bid(ALICE, 5, 45, CANCEL_RESTING));

      expect(result.order.state).toBe('ORDER_STATE_FILLED');
      expect(sut.order(own)?.state).toBe('ORDER_STATE_CANCELED');
      expect(sut.lastExecution(own)?.unsolicitedCancelReason).toBe('UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION');
    });

    it('cancels both orders with REMOVE_BOTH', () => {
      const own = sut.insert(ask(ALICE, 5, 45, SMP)).orderId;
      sut.insert(ask(BOB, 5, 45));

      const result = sut.insert(bid(ALICE, 5, 45, REMOVE_BOTH));

      expect(result.order).toMatchObject({ state: 'ORDER_STATE_CANCELED', cumQty: 0 });
      expect(sut.order(own)?.state).toBe('ORDER_STATE_CANCELED');
      expect(sut.lastExecution(own)?.unsolicitedCancelReason).toBe('UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION');
      expect(sut.book(SYMBOL).offers).toEqual([{ px: 45, qty: 5 }]);
    });

    it('lets two participants of one firm trade, whatever the id and instruction', () => {
      const resting = sut.insert(ask(ANNA, 5, 45, SMP)).orderId;

      const result = sut.insert(bid(ALICE, 5, 45, CANCEL_RESTING));

      expect(result.order.state).toBe('ORDER_STATE_FILLED');
      expect(sut.order(resting)).toMatchObject({ state: 'ORDER_STATE_FILLED', cumQty: 5 });
    });

    it('lets one participant trade with itself when the ids differ or are absent', () => {
      sut.insert(ask(ALICE, 5, 45, { selfMatchPreventionId: 'desk-2' }));
      sut.insert(ask(ALICE, 5, 45));

      expect(sut.insert(bid(ALICE, 5, 45, SMP)).order.state).toBe('ORDER_STATE_FILLED');
      expect(sut.insert(bid(ALICE, 5, 45)).order.state).toBe('ORDER_STATE_FILLED');
    });

    it('in an auction, lets the later order of the same participant and id decide', () => {
      const clock = new ManualClock();
      sut = new MatchingEngine({ clock: clock.read });
      const earlier = sut.insert(ask(ALICE, 5, 45, { ...SMP, symbol: PREOPEN_SYMBOL })).orderId;
      clock.advance(1);
      const later = sut.insert(bid(ALICE, 5, 45, { ...CANCEL_RESTING, symbol: PREOPEN_SYMBOL })).orderId;

      sut.setState(PREOPEN_SYMBOL, 'INSTRUMENT_STATE_OPEN');

      expect(sut.order(earlier)?.state).toBe('ORDER_STATE_CANCELED');
      expect(sut.order(later)?.state).toBe('ORDER_STATE_NEW');
    });
  });
});
