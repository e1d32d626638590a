import { z } from 'zod';

import { ValidationError } from '../errors/domain.error.js';

/** A dot segment would move the upstream path (`/v1/order/../cancel`); an empty one would drop a level. */
export const isDotOrEmptySegment = (value: string): boolean => value === '' || value === '.' || value === '..';

/** A dot segment, alone or among slashes a path parameter decoded to (`..`, `%2e%2e`, `..%2F..`, `..%5c`). */
export const hasDotSegment = (value: string): boolean =>
  value.includes('.') && value.split(/[/\\]/).some((piece) => piece === '.' || piece === '..');

/** A control character (C0 or DEL): no symbol, id or name upstream or in the journal holds one. */
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A UTF-16 surrogate without its pair: no UTF-8 text (an upstream's, PostgreSQL's) can carry it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A caller's text that the gateway forwards upstream AND keeps in a text column of the order journal
 * (clordId, order id, symbol): at most `max` characters, no control character, no unpaired surrogate.
 * PostgreSQL refuses a NUL in text (the write fails, and with it every order batched into the same
 * statement, other clients' included) and stores an unpaired surrogate as U+FFFD (so the idempotency
 * claim of a clordId holding one never finds its own row again: a 409 until the key expires). Refused
 * here, 400 naming the field, before anything is spent.
 */
export const wireText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !CONTROL.test(value), 'may not hold a control character')
    .refine((value) => !LONE_SURROGATE.test(value), 'may not hold an unpaired UTF-16 surrogate');

/**
 * A path parameter: anything but `.`, `..`, empty or a control character, at most 200 characters;
 * forwarded through `pathSegment`. No symbol, id or name upstream holds a control character, so one is
 * refused here rather than looked up (a symbol lookup may cost the instrument directory a read).
 */
export const PathSegmentSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !isDotOrEmptySegment(value), 'a path parameter may not be "." or ".."')
  .refine((value) => !CONTROL.test(value), 'a path parameter may not hold a control character');

/**
 * The one way a value becomes an upstream path segment: always percent-encoded (so `/`, `?`, `#` and `%`
 * cannot change the path), and never a dot segment, even if a caller skipped validation.
 */
export function pathSegment(value: string, field = 'params'): string {
  if (isDotOrEmptySegment(value))
    throw new ValidationError([{ path: field, message: 'a path parameter may not be empty, "." or ".."' }]);
  return encodeURIComponent(value);
}
