import { InstrumentListRequestSchema } from './instrument-list.schema.js';
import { OrderBookQuerySchema } from './order-book.schema.js';
import { BatchInsertRequestSchema, OrderRequestSchema, ReplaceRequestSchema } from './order-request.schema.js';
import { OrderSearchRequestSchema } from './order-search.schema.js';

const order = {
  symbol: 'aec-nfl-buf-kc-2026-11-22',
  side: 'SIDE_BUY',
  type: 'ORDER_TYPE_LIMIT',
  orderQty: '10',
  price: '55',
};

describe('OrderRequestSchema', () => {
  it('takes an order of spec 2.2', () => {
    expect(
      OrderRequestSchema.parse({
        ...order,
        timeInForce: 'TIME_IN_FORCE_GOOD_TILL_TIME',
        goodTillTime: '2026-11-22T20:00:00Z',
      }),
    ).toMatchObject(order);
  });

  it('refuses unknown fields, naming them', () => {
    const issues = OrderRequestSchema.safeParse({ ...order, colour: 'red' }).error?.issues ?? [];
    expect(issues).toEqual([expect.objectContaining({ code: 'unrecognized_keys', keys: ['colour'] })]);
  });

  it('refuses enum values that are not spelled exactly as specified', () => {
    for (const patch of [
      { side: 'BUY' },
      { type: 'ORDER_TYPE_MARKET' },
      { timeInForce: 'TIME_IN_FORCE_GOOD_TILL_DATE' },
      { manualOrderIndicator: 'MANUAL_ORDER_INDICATOR_AUTOMATIC' },
    ]) {
      expect(OrderRequestSchema.safeParse({ ...order, ...patch }).success).toBe(false);
    }
  });

  it('requires a symbol and a side, and int64 strings for quantities and prices', () => {
    expect(OrderRequestSchema.safeParse({ ...order, symbol: undefined }).success).toBe(false);
    expect(OrderRequestSchema.safeParse({ ...order, side: undefined }).success).toBe(false);
    expect(OrderRequestSchema.safeParse({ ...order, price: 55 }).success).toBe(false);
    expect(OrderRequestSchema.safeParse({ ...order, orderQty: '9223372036854775808' }).success).toBe(false);
  });
});

describe('BatchInsertRequestSchema', () => {
  it('names the item and field of a bad order', () => {
    const requests = [order, order, order, { ...order, orderQty: 'ten' }];
    expect(BatchInsertRequestSchema.safeParse({ requests }).error?.issues[0].path).toEqual(['requests', 3, 'orderQty']);
  });

  it('documents 20 as the most orders in a batch', () => {
    expect(BatchInsertRequestSchema.safeParse({ requests: Array(20).fill(order) }).success).toBe(true);
    expect(BatchInsertRequestSchema.safeParse({ requests: Array(21).fill(order) }).success).toBe(false);
  });
});

describe('ReplaceRequestSchema', () => {
  it('needs the order id and refuses fields a replace cannot carry', () => {
    expect(ReplaceRequestSchema.safeParse({ orderId: 'O1', price: '54' }).success).toBe(true);
    expect(ReplaceRequestSchema.safeParse({ price: '54' }).success).toBe(false);
    expect(ReplaceRequestSchema.safeParse({ orderId: 'O1', side: 'SIDE_SELL' }).success).toBe(false);
  });
});

describe('OrderSearchRequestSchema', () => {
  it('refuses an impossible trade date and an unknown state filter', () => {
    expect(
      OrderSearchRequestSchema.safeParse({ startTransactTradeDate: { year: 2026, month: 2, day: 30 } }).error?.issues[0]
        .path,
    ).toEqual(['startTransactTradeDate', 'day']);
    expect(OrderSearchRequestSchema.safeParse({ orderStateFilter: 'ORDER_STATE_FILTER_WORKING' }).success).toBe(false);
    expect(
      OrderSearchRequestSchema.safeParse({
        orderStateFilter: 'ORDER_STATE_FILTER_PENDING_RISK',
        withLastExecution: true,
      }).success,
    ).toBe(true);
  });
});

describe('InstrumentListRequestSchema', () => {
  it('defaults pageSize to 50 and bounds it to 1-1000', () => {
    expect(InstrumentListRequestSchema.parse({}).pageSize).toBe(50);
    expect(InstrumentListRequestSchema.safeParse({ pageSize: 1000 }).success).toBe(true);
    expect(InstrumentListRequestSchema.safeParse({ pageSize: 1001 }).success).toBe(false);
    expect(InstrumentListRequestSchema.safeParse({ pageSize: 0 }).success).toBe(false);
  });

  it('takes YYYY-MM-DD bounds only when they are real dates', () => {
    expect(InstrumentListRequestSchema.safeParse({ startTimeGte: '2026-11-01' }).success).toBe(true);
    expect(InstrumentListRequestSchema.safeParse({ startTimeGte: '2026-11-31' }).success).toBe(false);
  });

  it('wants one value per field filter, a list exactly for IN and NOT_IN, and a real operator', () => {
    const filter = (fieldFilter: object) =>
      InstrumentListRequestSchema.safeParse({ filter: { fieldFilters: [fieldFilter] } }).success;
    expect(filter({ field: 'symbol', operator: 'FILTER_OPERATOR_EQ', stringValue: 'x' })).toBe(true);
    expect(filter({ field: 'tick_size', operator: 'FILTER_OPERATOR_GE', intValue: '1' })).toBe(true);
    expect(
      filter({ field: 'state', operator: 'FILTER_OPERATOR_IN', stringList: { values: ['INSTRUMENT_STATE_OPEN'] } }),
    ).toBe(true);
    expect(filter({ field: 'state', operator: 'FILTER_OPERATOR_IN', stringValue: 'INSTRUMENT_STATE_OPEN' })).toBe(
      false,
    );
    expect(filter({ field: 'symbol', operator: 'FILTER_OPERATOR_EQ', stringValue: 'x', doubleValue: 1 })).toBe(false);
    expect(filter({ field: 'symbol', operator: 'FILTER_OPERATOR_UNSPECIFIED', stringValue: 'x' })).toBe(false);
    expect(filter({ field: 'symbol', operator: 'FILTER_OPERATOR_BETWEEN', stringValue: 'x' })).toBe(false);
  });
});

describe('OrderBookQuerySchema', () => {
  it('reads depth from the query string, default 3, 1 to 10', () => {
    expect(OrderBookQuerySchema.parse({})).toEqual({ depth: 3 });
    expect(OrderBookQuerySchema.parse({ depth: '10' })).toEqual({ depth: 10 });
    for (const depth of ['0', '11', '2.5', 'deep', '', '1e1', '0x3', ' 3', ['1', '2']])
      expect(OrderBookQuerySchema.safeParse({ depth }).success).toBe(false);
    expect(OrderBookQuerySchema.safeParse({ depth: '3', level: '2' }).success).toBe(false);
  });
});
