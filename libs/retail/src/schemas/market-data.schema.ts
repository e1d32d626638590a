import { z } from 'zod';

import { AmountSchema } from './retail-primitives.schema.js';

export const BookLevelSchema = z.looseObject({ px: AmountSchema, qty: z.string() });

/** `GET /v1/markets/{slug}/book` and the `marketData` channel message: the full book. */
export const RetailBookSchema = z.looseObject({
  marketSlug: z.string(),
  bids: z.array(BookLevelSchema),
  offers: z.array(BookLevelSchema),
  state: z.string(),
  stats: z
    .looseObject({
      lastTradePx: AmountSchema.optional(),
      sharesTraded: z.string().optional(),
      openInterest: z.string().optional(),
      highPx: AmountSchema.optional(),
      lowPx: AmountSchema.optional(),
    })
    .optional(),
  transactTime: z.string().optional(),
});
export type RetailBook = z.infer<typeof RetailBookSchema>;

/** `GET /v1/markets/{slug}/bbo`. */
export const RetailBboSchema = z.looseObject({
  marketSlug: z.string(),
  bestBid: AmountSchema.optional(),
  bestAsk: AmountSchema.optional(),
  bidDepth: z.number().optional(),
  askDepth: z.number().optional(),
  lastTradePx: AmountSchema.optional(),
  sharesTraded: z.string().optional(),
  openInterest: z.string().optional(),
});
export type RetailBbo = z.infer<typeof RetailBboSchema>;
