import { wireText } from '@lib/core';
import { z } from 'zod';

/** A clordId or order id to look up: one holding what no journaled id can (see wireText) is a 400, not a failed query. */
const id = wireText(255).min(1);

export const ClordIdParamsSchema = z.strictObject({ clordId: id });

/** An Idempotency-Key as the order path takes it (1-255 printable ASCII characters). */
export const IdempotencyKeyParamsSchema = z.strictObject({
  key: z.string().regex(/^[\x20-\x7e]{1,255}$/, 'an Idempotency-Key is 1-255 printable ASCII characters'),
});

/** Exactly one of clordId and orderId. */
export const TimelineQuerySchema = z
  .strictObject({ clordId: id.optional(), orderId: id.optional() })
  .refine((query) => (query.clordId === undefined) !== (query.orderId === undefined), {
    message: 'give exactly one of clordId and orderId',
    path: ['clordId'],
  });
export type TimelineQuery = z.infer<typeof TimelineQuerySchema>;

/** `from <= at < to`: an inverted or empty range is a client's mistake, refused naming `to`. */
export const ExportQuerySchema = z
  .strictObject({
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
    format: z.enum(['jsonl', 'csv']).default('jsonl'),
  })
  .refine((query) => Date.parse(query.to) > Date.parse(query.from), {
    message: 'to must be later than from',
    path: ['to'],
  });
export type ExportQuery = z.infer<typeof ExportQuerySchema>;
