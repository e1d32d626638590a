import { z } from 'zod';

import {
  INSTRUMENT_STATES,
  MANUAL_ORDER_INDICATORS,
  ORDER_CAPACITIES,
  ORDER_STATE_FILTERS,
  ORDER_TYPES,
  SELF_MATCH_PREVENTION_INSTRUCTIONS,
  SIDES,
  TIME_IN_FORCES,
} from '../../engine/index.js';

// The exchange's request shapes as the sandbox reads them, written from the spec (2.2, 2.3, 4.1, 8)
// and upstream-facts, never from the gateway's schemas: the sandbox judges the gateway on its own.
// Where the spec says "not shown", the sandbox accepts what the type allows and says so here.

const INT64 = /^-?(0|[1-9][0-9]*)$/;

/** Spec conventions: quantities and prices are strings holding 64-bit integers (a JSON number is refused). */
export const Int64String = z
  .string()
  .refine((value) => INT64.test(value) && BigInt(value) >= -(2n ** 63n) && BigInt(value) < 2n ** 63n, {
    message: 'expected a 64-bit integer as a decimal string',
  });

/** Spec conventions: date-time is ISO 8601 UTC; an explicit offset is the same instant (protobuf JSON reads both). */
export const DateTime = z.iso.datetime({ offset: true });

function realDay(d: { year: number; month: number; day: number }): boolean {
  const date = new Date(0);
  date.setUTCFullYear(d.year, d.month - 1, d.day);
  return date.getUTCFullYear() === d.year && date.getUTCMonth() === d.month - 1 && date.getUTCDate() === d.day;
}

/** Spec conventions: a date object with integer year, month, day naming a real day. */
export const DateObject = z
  .strictObject({ year: z.int().min(1).max(9999), month: z.int().min(1).max(12), day: z.int().min(1).max(31) })
  .refine(realDay, { message: 'not a calendar date', path: ['day'] });

export const InstrumentState = z.enum(INSTRUMENT_STATES);
const Side = z.enum(SIDES);
const OrderType = z.enum(ORDER_TYPES);
const TimeInForce = z.enum(TIME_IN_FORCES);

/** Spec 8: at most 20 orders per batch insert or batch replace. */
export const MAX_BATCH_ORDERS = 20;

/** Spec 2.2. Required fields are not shown; without a symbol and a side no exchange can act, so those two are required. */
export const OrderRequest = z.strictObject({
  type: OrderType.optional(),
  side: Side,
  orderQty: Int64String.optional(),
  symbol: z.string().min(1),
  price: Int64String.optional(),
  timeInForce: TimeInForce.optional(),
  clordId: z.string().optional(),
  account: z.string().optional(),
  stopPrice: Int64String.optional(),
  minQty: Int64String.optional(),
  selfMatchPreventionId: z.string().optional(),
  quote: z.string().optional(),
  allOrNone: z.boolean().optional(),
  sessionId: z.string().optional(),
  user: z.string().optional(),
  clientAccountId: z.string().optional(),
  clientParticipantId: z.string().optional(),
  participateDontInitiate: z.boolean().optional(),
  cashOrderQty: Int64String.optional(),
  strictLimit: z.boolean().optional(),
  goodTillTime: DateTime.optional(),
  bestLimit: z.boolean().optional(),
  immediatelyExecutableLimit: z.boolean().optional(),
  selfMatchPreventionInstruction: z.enum(SELF_MATCH_PREVENTION_INSTRUCTIONS).optional(),
  orderCapacity: z.enum(ORDER_CAPACITIES).optional(),
  ignorePriceValidityChecks: z.boolean().optional(),
  manualOrderIndicator: z.enum(MANUAL_ORDER_INDICATORS).optional(),
});
export type OrderRequest = z.infer<typeof OrderRequest>;

/** Spec 2.3. */
export const ReplaceRequest = z.strictObject({
  orderId: z.string().min(1),
  clordId: z.string().optional(),
  symbol: z.string().optional(),
  price: Int64String.optional(),
  orderQty: Int64String.optional(),
  timeInForce: TimeInForce.optional(),
  stopPrice: Int64String.optional(),
  minQty: Int64String.optional(),
  allOrNone: z.boolean().optional(),
  participateDontInitiate: z.boolean().optional(),
  strictLimit: z.boolean().optional(),
  goodTillTime: DateTime.optional(),
  bestLimit: z.boolean().optional(),
  immediatelyExecutableLimit: z.boolean().optional(),
  manualOrderIndicator: z.enum(MANUAL_ORDER_INDICATORS).optional(),
});
export type ReplaceRequest = z.infer<typeof ReplaceRequest>;

export const PreviewOrderRequest = z.strictObject({ request: OrderRequest });
/** The size is checked before the items, so an oversized batch is a 413 (upstream-facts), not a 400. */
export const BatchInsertRequest = z.strictObject({ requests: z.array(OrderRequest).min(1) });
export const BatchReplaceRequest = z.strictObject({ requests: z.array(ReplaceRequest).min(1) });

/** Order search pageSize: bounds not shown; any positive int32 is read, and a page holds at most 1000. */
export const SearchPageSize = z.int32().min(1);

/** Spec 4.1 order search. */
export const OrderSearchRequest = z.strictObject({
  pageSize: SearchPageSize.optional(),
  pageToken: z.string().optional(),
  orderId: z.string().optional(),
  clordId: z.string().optional(),
  startTime: DateTime.optional(),
  endTime: DateTime.optional(),
  symbol: z.string().optional(),
  accounts: z.array(z.string()).optional(),
  side: Side.optional(),
  type: OrderType.optional(),
  orderStateFilter: z.enum(ORDER_STATE_FILTERS).optional(),
  crossId: z.string().optional(),
  hostCrossId: z.string().optional(),
  clientAccountId: z.string().optional(),
  clientParticipantId: z.string().optional(),
  parentOrderId: z.string().optional(),
  startTransactTradeDate: DateObject.optional(),
  endTransactTradeDate: DateObject.optional(),
  withLastExecution: z.boolean().optional(),
});

/** Spec 4.1 trade statistics; `bars` is an int32 count of buckets (upstream-facts), 0 meaning none. */
export const TradeStatsRequest = z.strictObject({
  symbol: z.string().optional(),
  startTime: DateTime.optional(),
  endTime: DateTime.optional(),
  bars: z.int32().min(0).optional(),
  startTradeDate: DateObject.optional(),
  endTradeDate: DateObject.optional(),
});

/** Spec 4.1 and 8: order book depth, default 3, 1 to 10; a query string carries digits only. */
export const OrderBookQuery = z.strictObject({
  depth: z
    .string()
    .regex(/^[0-9]+$/, 'expected a whole number')
    .transform(Number)
    .pipe(z.int().min(1).max(10))
    .default(3),
});

/** upstream-facts: the instrument filter operators; UNSPECIFIED is the proto default and filters nothing. */
export const FILTER_OPERATORS = [
  'FILTER_OPERATOR_UNSPECIFIED',
  'FILTER_OPERATOR_EQ',
  'FILTER_OPERATOR_NE',
  'FILTER_OPERATOR_LT',
  'FILTER_OPERATOR_LE',
  'FILTER_OPERATOR_GT',
  'FILTER_OPERATOR_GE',
  'FILTER_OPERATOR_LIKE',
  'FILTER_OPERATOR_IN',
  'FILTER_OPERATOR_NOT_IN',
] as const;
const VALUE_KEYS = ['stringValue', 'intValue', 'doubleValue', 'stringList'] as const;

/** upstream-facts: a field filter carries exactly one of stringValue, intValue, doubleValue, stringList (a list for IN / NOT_IN). */
export const FieldFilter = z
  .strictObject({
    field: z.string().min(1),
    operator: z.enum(FILTER_OPERATORS),
    stringValue: z.string().optional(),
    intValue: Int64String.optional(),
    doubleValue: z.number().optional(),
    stringList: z.strictObject({ values: z.array(z.string()) }).optional(),
  })
  .superRefine((filter, ctx) => {
    const given = VALUE_KEYS.filter((key) => filter[key] !== undefined);
    const listOperator = filter.operator === 'FILTER_OPERATOR_IN' || filter.operator === 'FILTER_OPERATOR_NOT_IN';
    if (filter.operator === 'FILTER_OPERATOR_UNSPECIFIED')
      ctx.addIssue({ code: 'custom', path: ['operator'], message: 'operator is required' });
    else if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'exactly one of stringValue, intValue, doubleValue, stringList',
      });
    else if (listOperator !== (given[0] === 'stringList'))
      ctx.addIssue({
        code: 'custom',
        path: [given[0]],
        message: `${filter.operator} takes ${listOperator ? 'a stringList' : 'one value'}`,
      });
  });
export type FieldFilter = z.infer<typeof FieldFilter>;

const IsoDate = z.iso.date();

/** Spec 4.1 instrument list; spec 8: page size default 50, maximum 1000. */
export const InstrumentListRequest = z.strictObject({
  pageSize: z.int32().min(1).max(1000).default(50),
  pageToken: z.string().optional(),
  symbols: z.array(z.string()).optional(),
  productId: z.string().optional(),
  tradableFilter: z
    .enum(['TRADABLE_FILTER_TRADABLE', 'TRADABLE_FILTER_NON_TRADABLE', 'TRADABLE_FILTER_ALL'])
    .optional(),
  states: z.array(InstrumentState).optional(),
  eventSeries: z.string().optional(),
  eventCategory: z.string().optional(),
  clearingSym: z.string().optional(),
  startTimeGte: IsoDate.optional(),
  startTimeLte: IsoDate.optional(),
  endTimeGte: IsoDate.optional(),
  endTimeLte: IsoDate.optional(),
  filter: z
    .strictObject({ whereClause: z.string().optional(), fieldFilters: z.array(FieldFilter).optional() })
    .optional(),
});
export type InstrumentListRequest = z.infer<typeof InstrumentListRequest>;
