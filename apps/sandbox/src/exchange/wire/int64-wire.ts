import { SurfaceError } from '../../shared/surface-error.js';

/**
 * An int64 string (already checked by the request schema) as the engine's integer. The engine counts
 * in JS numbers, so a value past ±2^53 is refused with a 400 rather than silently rounded.
 */
export function engineInt(value: string | undefined, path: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw new SurfaceError(
      400,
      `${path}: ${value} is outside the range this exchange accepts (at most 2^53 - 1 in magnitude)`,
    );
  return n;
}

/** The engine's integer as an int64 string; averages may be fractional, so they are rounded to a whole unit. */
export function int64(value: number): string {
  return String(Math.round(value));
}

/** A present optional number as an int64 string, absent otherwise. */
export function optionalInt64(value: number | undefined): string | undefined {
  return value === undefined ? undefined : int64(value);
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A date-time the request schema already checked, as epoch milliseconds. */
export function epochMs(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Date.parse(value);
}
