import { z } from 'zod';

import { DateObjectSchema, DateTimeSchema } from './wire-types.schema.js';

/** Spec 2.7: every field a string. */
export const TradeStatisticsSchema = z.object({
  first: z.string().optional(),
  last: z.string().optional(),
  high: z.string().optional(),
  low: z.string().optional(),
  totalTradeCount: z.string().optional(),
  clearedTradeCount: z.string().optional(),
  volume: z.string().optional(),
  clearedVolume: z.string().optional(),
  notional: z.string().optional(),
  clearedNotional: z.string().optional(),
});
export type TradeStatistics = z.infer<typeof TradeStatisticsSchema>;

/** Spec 4.1; `bars` is the number of equal buckets between start and end (upstream-facts), bounds not shown beyond int32. */
export const TradeStatsRequestSchema = z.strictObject({
  symbol: z.string().optional(),
  startTime: DateTimeSchema.optional(),
  endTime: DateTimeSchema.optional(),
  bars: z.int32().min(0).optional(),
  startTradeDate: DateObjectSchema.optional(),
  endTradeDate: DateObjectSchema.optional(),
});
export type TradeStatsRequest = z.infer<typeof TradeStatsRequestSchema>;

export const TradeStatsResponseSchema = z.object({
  stats: TradeStatisticsSchema.optional(),
  bars: z.array(TradeStatisticsSchema).optional(),
  barStartTime: z.array(DateTimeSchema).optional(),
  barEndTime: z.array(DateTimeSchema).optional(),
});
