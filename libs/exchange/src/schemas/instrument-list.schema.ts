import { z } from 'zod';

import { FilterOperatorSchema, InstrumentStateSchema, TradableFilterSchema } from './exchange-enums.schema.js';
import { InstrumentSchema } from './instrument.schema.js';
import { Int64StringSchema, IsoDateSchema, JsonObjectSchema } from './wire-types.schema.js';

/** Spec 4.1 and 8: instrument listing page size, default 50, maximum 1000. */
export const INSTRUMENT_PAGE_SIZE = { default: 50, max: 1000 } as const;

const LIST_OPERATORS = new Set(['FILTER_OPERATOR_IN', 'FILTER_OPERATOR_NOT_IN']);

/** upstream-facts: a field filter carries one of stringValue, intValue, doubleValue, stringList. */
export const FieldFilterSchema = z
  .strictObject({
    field: z.string().min(1),
    operator: FilterOperatorSchema,
    stringValue: z.string().optional(),
    intValue: Int64StringSchema.optional(),
    doubleValue: z.number().optional(),
    stringList: z.strictObject({ values: z.array(z.string()) }).optional(),
  })
  .superRefine((filter, ctx) => {
    const given = (['stringValue', 'intValue', 'doubleValue', 'stringList'] as const).filter(
      (key) => filter[key] !== undefined,
    );
    if (filter.operator === 'FILTER_OPERATOR_UNSPECIFIED') {
      ctx.addIssue({ code: 'custom', path: ['operator'], message: 'an operator is required' });
    } else if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give exactly one of stringValue, intValue, doubleValue, stringList',
      });
    } else if (LIST_OPERATORS.has(filter.operator) !== (given[0] === 'stringList')) {
      ctx.addIssue({
        code: 'custom',
        path: [given[0]],
        message: `${filter.operator} needs ${LIST_OPERATORS.has(filter.operator) ? 'stringList' : 'a single value'}`,
      });
    }
  });
export type FieldFilter = z.infer<typeof FieldFilterSchema>;

/** Both parts given means both apply (spec 4.1). */
export const InstrumentFilterSchema = z.strictObject({
  whereClause: z.string().optional(),
  fieldFilters: z.array(FieldFilterSchema).optional(),
});

/** Spec 4.1 instrument list request; every field optional. */
export const InstrumentListRequestSchema = z.strictObject({
  pageSize: z.int32().min(1).max(INSTRUMENT_PAGE_SIZE.max).default(INSTRUMENT_PAGE_SIZE.default),
  pageToken: z.string().optional(),
  symbols: z.array(z.string()).optional(),
  productId: z.string().optional(),
  tradableFilter: TradableFilterSchema.optional(),
  states: z.array(InstrumentStateSchema).optional(),
  eventSeries: z.string().optional(),
  eventCategory: z.string().optional(),
  clearingSym: z.string().optional(),
  startTimeGte: IsoDateSchema.optional(),
  startTimeLte: IsoDateSchema.optional(),
  endTimeGte: IsoDateSchema.optional(),
  endTimeLte: IsoDateSchema.optional(),
  filter: InstrumentFilterSchema.optional(),
});
export type InstrumentListRequest = z.infer<typeof InstrumentListRequestSchema>;
export type InstrumentListRequestInput = z.input<typeof InstrumentListRequestSchema>;

export const InstrumentListResponseSchema = z.object({
  instruments: z.array(InstrumentSchema).optional(),
  nextPageToken: z.string().optional(),
  eof: z.boolean().optional(),
});

/** Symbols and metadata payloads: not shown (spec 4.1); passed through. */
export const SymbolsRequestSchema = JsonObjectSchema;
export const MetadataRequestSchema = JsonObjectSchema;
