import { wireText } from '@lib/core';
import { z } from 'zod';

/** A clordId or order id to look up: one holding what no journaled id can (see wireText) is a 400, not a failed query. */
const id = wireText(255).min(1);

export const ClordIdParamsSchema = z.strictObject({ clordId: id });

/** An Idempotency-Key as the order path takes it (1-255 printable ASCII characters). */
const clientKey = z.string().regex(/^[\x20-\x7e]{1,255}$/, 'an Idempotency-Key is 1-255 printable ASCII characters');
/**
 * The key the gateway gives an insert sent without one, `clordId:<participant>:<clordId>` (or a batch's
 * `clordIds:<participant>:<sha256>`), which a 202's Location names: a clordId may be any text of up to
 * 200 characters and a participant up to 200, so it may be longer than a client's key and not ASCII.
 */
const implicitKey = wireText(9 + 200 + 1 + 200).regex(
  /^clordIds?:/,
  "a key beyond 255 printable ASCII characters is only the gateway's own (clordId:…)",
);

export const IdempotencyKeyParamsSchema = z.strictObject({ key: z.union([clientKey, implicitKey]) });

/** Exactly one of clordId and orderId. */
export const TimelineQuerySchema = z
  .strictObject({ clordId: id.optional(), orderId: id.optional() })
  .refine((query) => (query.clordId === undefined) !== (query.orderId === undefined), {
    message: 'give exactly one of clordId and orderId',
    path: ['clordId'],
  });
export type TimelineQuery = z.infer<typeof TimelineQuerySchema>;

/** The first and last instants the journal's range query can carry: years 0001 to 9999, in UTC. */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 date-time whose instant lies in years 0001 to 9999 UTC. The query sends it to PostgreSQL
 * as toISOString() writes it, and PostgreSQL has no year 0 (`0000-01-01T00:00:00Z`, or
 * `0001-01-01T00:00:00+01:00`, was a 503 JOURNAL_UNAVAILABLE) nor reads a six-digit year (`+010000-…`,
 * from `9999-12-31T23:59:59-14:00`); so such a date is a client's mistake, refused naming the field.
 */
const JournalInstant = z.iso
  .datetime({ offset: true })
  .refine((value) => Date.parse(value) >= EARLIEST && Date.parse(value) <= LATEST, {
    message: 'a date-time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z',
  });

/** `from <= at < to`: an inverted or empty range is a client's mistake, refused naming `to`. */
export const ExportQuerySchema = z
  .strictObject({
    from: JournalInstant,
    to: JournalInstant,
    format: z.enum(['jsonl', 'csv']).default('jsonl'),
  })
  .refine((query) => Date.parse(query.to) > Date.parse(query.from), {
    message: 'to must be later than from',
    path: ['to'],
  });
export type ExportQuery = z.infer<typeof ExportQuerySchema>;
