import { ALICE, ask, bid, ManualClock, SYMBOL } from './engine.harness.js';
import type { OrdRejectReason } from './engine.enums.js';
import { binaryContract } from './instruments.fixture.js';
import { MatchingEngine } from './matching-engine.js';
import type { OrderRequest } from './order.types.js';

describe(MatchingEngine.name, () => {
  let sut: MatchingEngine;

  beforeEach(() => {
    const tickOfFive = {
      ...binaryContract({ league: 'test', away: 'aaa', home: 'bbb', date: '2026-11-22' }),
      tickSize: 5,
    };
    sut = new MatchingEngine({
      clock: new ManualClock().read,
      instruments: [binaryContract({ league: 'nfl', away: 'buf', home: 'kc', date: '2026-11-22' }), tickOfFive],
    });
  });

  describe('order validation', () => {
    const cases: [string, OrderRequest, OrdRejectReason][] = [
      ['an unknown symbol', bid(ALICE, 1, 40, { symbol: 'aec-nope' }), 'ORD_REJECT_REASON_UNKNOWN_SYMBOL'],
      ['a missing account', bid('', 1, 40), 'ORD_REJECT_REASON_INVALID_ACCOUNT'],
      ['a limit order without a price', bid(ALICE, 1, 0), 'ORD_REJECT_REASON_MISSING_PRICE'],
      [
        'a price off the tick',
        bid(ALICE, 1, 42, { symbol: 'aec-test-aaa-bbb-2026-11-22' }),
        'ORD_REJECT_REASON_INVALID_PRICE_INCREMENT',
      ],
      ['a fractional price', bid(ALICE, 1, 40.5), 'ORD_REJECT_REASON_INVALID_PRICE_INCREMENT'],
      ['a price above the band', bid(ALICE, 1, 100), 'ORD_REJECT_REASON_PRICE_OUT_OF_RANGE'],
      ['a price below the band', ask(ALICE, 1, -1), 'ORD_REJECT_REASON_PRICE_OUT_OF_RANGE'],
      ['a zero quantity', bid(ALICE, 0, 40), 'ORD_REJECT_REASON_INVALID_QUANTITY'],
      ['a fractional quantity', bid(ALICE, 1.5, 40), 'ORD_REJECT_REASON_INVALID_QUANTITY'],
      ['a quantity above the size limit', bid(ALICE, 100_001, 40), 'ORD_REJECT_REASON_QUANTITY_OUT_OF_RANGE'],
      ['a notional above the limit', bid(ALICE, 60_000, 90), 'ORD_REJECT_REASON_NOTIONAL_OUT_OF_RANGE'],
      ['a minQty above the quantity', bid(ALICE, 2, 40, { minQty: 3 }), 'ORD_REJECT_REASON_INVALID_MIN_QTY'],
      [
        'a stop without a stop price',
        bid(ALICE, 1, 0, { type: 'ORDER_TYPE_STOP' }),
        'ORD_REJECT_REASON_MISSING_STOP_PRICE',
      ],
      [
        'a stop-limit without a limit price',
        bid(ALICE, 1, 0, { type: 'ORDER_TYPE_STOP_LIMIT', stopPrice: 50 }),
        'ORD_REJECT_REASON_MISSING_PRICE',
      ],
      [
        'a cash amount on a limit order',
        bid(ALICE, 0, 40, { cashOrderQty: 100 }),
        'ORD_REJECT_REASON_INVALID_ORDER_TYPE',
      ],
    ];

    it.each(cases)('rejects %s', (_, request, reason) => {
      const result = sut.insert(request);

      expect(result.executions).toHaveLength(1);
      expect(result.executions[0]).toMatchObject({ type: 'EXECUTION_TYPE_REJECTED', orderRejectReason: reason });
      expect(result.order).toMatchObject({ state: 'ORDER_STATE_REJECTED', leavesQty: 0 });
    });

    it('skips the price band for an order that asks to ignore price validity checks', () => {
      const result = sut.insert(bid(ALICE, 1, 100, { ignorePriceValidityChecks: true }));

      expect(result.order.state).toBe('ORDER_STATE_NEW');
    });

    it('keeps rejected orders searchable and does not reserve their clordId', () => {
      const rejected = sut.insert(bid(ALICE, 1, 100, { clordId: 'c-1' }));

      const retried = sut.insert(bid(ALICE, 1, 40, { clordId: 'c-1' }));

      expect(retried.order.state).toBe('ORDER_STATE_NEW');
      expect(sut.searchOrders({ orderStateFilter: 'ORDER_STATE_FILTER_REJECTED' }).order.map((o) => o.id)).toEqual([
        rejected.orderId,
      ]);
    });

    it('previews an order without inserting it', () => {
      const good = sut.preview(bid(ALICE, 1, 40));
      const bad = sut.preview(bid(ALICE, 1, 100));

      expect(good).toEqual({ order: expect.objectContaining({ state: 'ORDER_STATE_PENDING_NEW', price: 40 }) });
      expect(bad.rejectReason).toBe('ORD_REJECT_REASON_PRICE_OUT_OF_RANGE');
      expect(sut.book(SYMBOL).bids).toEqual([]);
    });
  });
});
