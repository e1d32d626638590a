import { z } from 'zod';

import { ValidationError } from '../errors/domain.error.js';

/** A dot segment would move the upstream path (`/v1/order/../cancel`); an empty one would drop a level. */
export const isDotOrEmptySegment = (value: string): boolean => value === '' || value === '.' || value === '..';

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
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'a path parameter may not hold a control character');

/**
 * The one way a value becomes an upstream path segment: always percent-encoded (so `/`, `?`, `#` and `%`
 * cannot change the path), and never a dot segment, even if a caller skipped validation.
 */
export function pathSegment(value: string, field = 'params'): string {
  if (isDotOrEmptySegment(value))
    throw new ValidationError([{ path: field, message: 'a path parameter may not be empty, "." or ".."' }]);
  return encodeURIComponent(value);
}
