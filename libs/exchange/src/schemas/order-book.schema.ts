import { z } from 'zod';

import { InstrumentStateSchema } from './exchange-enums.schema.js';
import { DateTimeSchema } from './wire-types.schema.js';

/** Spec 4.1 and 8: order book depth, default 3, maximum 10. */
export const BOOK_DEPTH = { default: 3, max: 10 } as const;

/** The query string carries text: plain digits only (no `1e1`, `0x3` or repeated keys), then an integer 1-10. */
export const OrderBookQuerySchema = z.strictObject({
  depth: z
    .string()
    .regex(/^[0-9]+$/, 'expected a whole number')
    .transform(Number)
    .pipe(z.int().min(1).max(BOOK_DEPTH.max))
    .default(BOOK_DEPTH.default)
    .meta({ description: `levels per side, 1 to ${BOOK_DEPTH.max}; default ${BOOK_DEPTH.default}` }),
});
export type OrderBookQuery = z.infer<typeof OrderBookQuerySchema>;

export const BookLevelSchema = z.object({ px: z.string().optional(), qty: z.string().optional() });

export const BookStatsSchema = z.object({
  openPx: z.string().optional(),
  closePx: z.string().optional(),
  lowPx: z.string().optional(),
  highPx: z.string().optional(),
  lastTradePx: z.string().optional(),
  indicativeOpenPx: z.string().optional(),
  settlementPx: z.string().optional(),
  sharesTraded: z.string().optional(),
  notionalTraded: z.string().optional(),
  openInterest: z.string().optional(),
});

/** Spec 2.6: bids best (highest) first, offers best (lowest) first. */
export const OrderBookSnapshotSchema = z.object({
  symbol: z.string().optional(),
  bids: z.array(BookLevelSchema).optional(),
  offers: z.array(BookLevelSchema).optional(),
  state: InstrumentStateSchema.optional(),
  stats: BookStatsSchema.optional(),
  transactTime: DateTimeSchema.optional(),
});
export type OrderBookSnapshot = z.infer<typeof OrderBookSnapshotSchema>;
