import { ExchangeExecutionSchema, ExchangeOrderSchema, InstrumentSchema, OrderBookSnapshotSchema } from '@lib/exchange';
import { z } from 'zod';

import { MatchingEngine } from '../apps/sandbox/src/engine/index.js';
import { bookRecord, instrumentRecord } from '../apps/sandbox/src/exchange/wire/market-wire.js';
import { executionRecord, orderRecord } from '../apps/sandbox/src/exchange/wire/order-wire.js';
import { defOf } from './support/zod-arbitrary.js';

// The third leg of the contract (test/contract.test.ts has the other two): what the sandbox answers
// parses with the gateway's response schemas made strict all the way down, so a field the sandbox
// writes and the gateway's schema does not know is found. Open shapes stay open where the spec says
// so (instrument `metadata`: "free-form object").

const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';

/** The schema with every object strict, through optionals, arrays and nested objects. */
function strictDeep(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (def.type === 'optional') return strictDeep(def.innerType as z.ZodType).optional();
  if (def.type === 'array') return z.array(strictDeep(def.element as z.ZodType));
  if (def.type === 'object')
    return z.strictObject(
      Object.fromEntries(
        Object.entries(def.shape as Record<string, z.ZodType>).map(([key, field]) => [key, strictDeep(field)]),
      ),
    );
  return schema;
}

const issuesOf = (schema: z.ZodType, value: unknown) =>
  (strictDeep(schema).safeParse(value).error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);

describe('sandbox records against the gateway strict response schemas', () => {
  const engine = new MatchingEngine({ clock: () => Date.parse('2026-11-22T18:00:00Z') });
  // A resting order, a fill, a partial fill, a GTT order, a reject and a cancel: every execution type the records carry.
  engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_SELL',
    orderQty: 5,
    price: 40,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: 'firms/B/users/carol',
  });
  const fill = engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    orderQty: 3,
    price: 40,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: 'firms/A/users/alice',
    clordId: 'c1',
  });
  const gtt = engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    orderQty: 1,
    price: 30,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_TIME',
    goodTillTime: Date.parse('2026-11-23T00:00:00Z'),
    account: 'firms/A/users/alice',
  });
  const rejected = engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    orderQty: 1,
    price: 1000,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: 'firms/A/users/alice',
  });
  const canceled = engine.cancel({ account: 'firms/A/users/alice', orderId: gtt.orderId });

  it('finds a field the gateway does not know, at any depth (the check bites)', () => {
    const execution = executionRecord(canceled);
    expect(issuesOf(ExchangeExecutionSchema, { ...execution, order: { ...execution.order, firm: 'firms/A' } })).toEqual(
      ['order: Unrecognized key: "firm"'],
    );
  });

  it('orders (spec 2.1)', () => {
    const orders = engine.searchOrders({ pageSize: 1000 }).order;
    expect(orders.length).toBeGreaterThanOrEqual(4);
    expect(orders.flatMap((order) => issuesOf(ExchangeOrderSchema, orderRecord(order)))).toEqual([]);
  });

  it('executions (spec 2.4)', () => {
    const executions = [...fill.executions, ...rejected.executions, canceled];
    expect(new Set(executions.map((execution) => execution.type)).size).toBeGreaterThanOrEqual(3);
    expect(executions.flatMap((execution) => issuesOf(ExchangeExecutionSchema, executionRecord(execution)))).toEqual(
      [],
    );
  });

  it('instruments (spec 2.5) and the book (spec 2.6)', () => {
    expect(
      engine.instruments().flatMap((instrument) => issuesOf(InstrumentSchema, instrumentRecord(instrument))),
    ).toEqual([]);
    expect(issuesOf(OrderBookSnapshotSchema, bookRecord(engine.book(SYMBOL, 10)))).toEqual([]);
  });
});
