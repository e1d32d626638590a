import { wireText } from '@lib/core';
import { z } from 'zod';

import { OrderStateFilterSchema, OrderTypeSchema, SideSchema } from './exchange-enums.schema.js';
import { ExchangeExecutionSchema, ExchangeOrderSchema } from './exchange-order.schema.js';
import { AccountListSchema, ParticipantFieldSchema } from './identity-fields.schema.js';
import { DateObjectSchema, DateTimeSchema } from './wire-types.schema.js';

/** Search bounds are not shown; the instrument list's (1 to 1000) are the documented ones closest to hand. */
export const SearchPageSizeSchema = z.int().min(1).max(1000);

/** An id or symbol to search by: what no order the exchange or the journal holds can contain (see wireText) is a 400, not an upstream read. */
const searchText = wireText(200).optional();

/** Spec 4.1 order search. */
export const OrderSearchRequestSchema = z.strictObject({
  pageSize: SearchPageSizeSchema.optional(),
  pageToken: z.string().optional(),
  orderId: searchText,
  clordId: searchText,
  startTime: DateTimeSchema.optional(),
  endTime: DateTimeSchema.optional(),
  symbol: searchText,
  accounts: AccountListSchema.optional(),
  side: SideSchema.optional(),
  type: OrderTypeSchema.optional(),
  orderStateFilter: OrderStateFilterSchema.optional(),
  crossId: z.string().optional(),
  hostCrossId: z.string().optional(),
  clientAccountId: ParticipantFieldSchema.optional(),
  clientParticipantId: ParticipantFieldSchema.optional(),
  parentOrderId: searchText,
  startTransactTradeDate: DateObjectSchema.optional(),
  endTransactTradeDate: DateObjectSchema.optional(),
  withLastExecution: z.boolean().optional(),
});
export type OrderSearchRequest = z.infer<typeof OrderSearchRequestSchema>;

/** upstream-facts: the field holding the orders is `order`, an array. */
export const OrderSearchResponseSchema = z.object({
  order: z.array(ExchangeOrderSchema).optional(),
  nextPageToken: z.string().optional(),
  lastExecutions: z.array(ExchangeExecutionSchema).optional(),
});

/** Trade search request: not shown (spec 2.8, 4.1); the order search's filters that apply to trades, paged the same way. */
export const TradeSearchRequestSchema = z.strictObject({
  symbol: searchText,
  accounts: AccountListSchema.optional(),
  orderId: searchText,
  startTime: DateTimeSchema.optional(),
  endTime: DateTimeSchema.optional(),
  pageSize: SearchPageSizeSchema.optional(),
  pageToken: z.string().optional(),
});
export type TradeSearchRequest = z.infer<typeof TradeSearchRequestSchema>;
