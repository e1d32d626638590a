import { z } from 'zod';

import { ValidationError } from '../errors/domain.error.js';

/** A dot segment would move the upstream path (`/v1/order/../cancel`); an empty one would drop a level. */
export const isDotOrEmptySegment = (value: string): boolean => value === '' || value === '.' || value === '..';

/** A path parameter: anything but `.`, `..` or empty, at most 200 characters; forwarded through `pathSegment`. */
export const PathSegmentSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !isDotOrEmptySegment(value), 'a path parameter may not be "." or ".."');

/**
 * The one way a value becomes an upstream path segment: always percent-encoded (so `/`, `?`, `#` and `%`
 * cannot change the path), and never a dot segment, even if a caller skipped validation.
 */
export function pathSegment(value: string, field = 'params'): string {
  if (isDotOrEmptySegment(value)) throw new ValidationError([{ path: field, message: 'a path parameter may not be empty, "." or ".."' }]);
  return encodeURIComponent(value);
}
