import { ALICE, ask, bid, BOB, CAROL, ManualClock, SYMBOL } from './engine.harness.js';
import { MatchingEngine } from './matching-engine.js';

describe(MatchingEngine.name, () => {
  let sut: MatchingEngine;

  beforeEach(() => {
    sut = new MatchingEngine({ clock: new ManualClock().read, initialBalance: 10_000 });
    sut.insert(ask(BOB, 10, 40));
    sut.insert(bid(ALICE, 10, 40));
  });

  describe('positions and balances', () => {
    it('books a fill on both sides: position, cost and cash', () => {
      expect(sut.position(ALICE, SYMBOL)).toMatchObject({
        netPosition: 10,
        qtyBought: 10,
        qtySold: 0,
        cost: 400,
        realized: 0,
      });
      expect(sut.position(BOB, SYMBOL)).toMatchObject({ netPosition: -10, qtyBought: 0, qtySold: 10, cost: -400 });
      expect(sut.balance(ALICE).currentBalance).toBe(9_600);
      expect(sut.balance(BOB).currentBalance).toBe(10_400);
    });

    it('realizes profit against the average cost when a position shrinks', () => {
      sut.insert(bid(CAROL, 4, 50));
      sut.insert(ask(ALICE, 4, 50));

      expect(sut.position(ALICE, SYMBOL)).toMatchObject({ netPosition: 6, qtySold: 4, cost: 240, realized: 40 });
      expect(sut.balance(ALICE).currentBalance).toBe(9_800);
      expect(sut.balance(CAROL).currentBalance).toBe(9_800);
    });

    it('realizes on a short that is bought back and flips through zero', () => {
      sut.insert(ask(CAROL, 12, 30));
      sut.insert(bid(BOB, 12, 30));

      expect(sut.position(BOB, SYMBOL)).toMatchObject({ netPosition: 2, cost: 60, realized: 100 });
    });

    it('counts open buy orders against buying power', () => {
      sut.insert(bid(ALICE, 5, 30));

      expect(sut.balance(ALICE)).toMatchObject({
        currentBalance: 9_600,
        openOrders: 150,
        buyingPower: 9_450,
        currency: 'USD',
      });
    });

    it('tracks open interest as the sum of long positions', () => {
      sut.insert(bid(CAROL, 4, 50));
      sut.insert(ask(ALICE, 4, 50));

      expect(sut.book(SYMBOL).stats.openInterest).toBe(10);
      expect(sut.bbo(SYMBOL).openInterest).toBe(10);
    });

    it('rolls the beginning-of-day position at the end of the day', () => {
      sut.endOfDay();

      expect(sut.position(ALICE, SYMBOL)?.bodPosition).toBe(10);
      expect(sut.book(SYMBOL).stats).toMatchObject({ closePx: 40, sharesTraded: 0 });
    });

    it('lists every position of an account and takes deposits', () => {
      expect(sut.positions(ALICE).map((position) => position.symbol)).toEqual([SYMBOL]);
      expect(sut.deposit(ALICE, 400).currentBalance).toBe(10_000);
      expect(sut.balance('firms/nobody/users/new')).toMatchObject({ currentBalance: 10_000, buyingPower: 10_000 });
    });
  });
});
