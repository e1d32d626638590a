import { PathSegmentSchema } from '@lib/core';
import { z } from 'zod';

/** `/v1/orderbook/{symbol}`: an instrument symbol, never a dot segment. */
export const SymbolParamsSchema = z.strictObject({
  symbol: PathSegmentSchema.meta({ example: 'aec-nfl-buf-kc-2026-11-22' }),
});

/** `/v1/{processor}/deposits`: spec 4.1 names checkout and one other processor; unknown ones are a 404. */
export const ProcessorParamsSchema = z.strictObject({ processor: PathSegmentSchema.meta({ example: 'checkout' }) });
