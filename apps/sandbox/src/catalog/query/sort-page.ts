import { SurfaceError } from '../../shared/surface-error.js';

export interface SortPage {
  limit?: number;
  offset?: number;
  orderBy?: readonly string[];
  orderDirection?: 'asc' | 'desc';
}

/** Page size when a request names none (the upstream default is not shown; one page of 100 is plausible). */
export const DEFAULT_LIMIT = 100;

type Primitive = string | number | boolean;

function compare(a: Primitive, b: Primitive): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  // Numeric ids are strings in the records: compare them as numbers.
  if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Sorts by the named fields in turn (400 for a field the records do not have), then takes one page. */
export function sortAndPage<T>(items: readonly T[], query: SortPage, recordOf: (item: T) => object): T[] {
  const fields = query.orderBy ?? [];
  const sign = query.orderDirection === 'desc' ? -1 : 1;
  const valueOf = (item: T, field: string): Primitive => {
    const value = (recordOf(item) as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    throw new SurfaceError(400, `orderBy: cannot order by ${field}`);
  };
  const sorted = [...items];
  if (fields.length) {
    sorted.sort((a, b) => {
      for (const field of fields) {
        const order = compare(valueOf(a, field), valueOf(b, field));
        if (order !== 0) return sign * order;
      }
      return 0;
    });
  } else if (sign < 0) {
    sorted.reverse();
  }
  const offset = query.offset ?? 0;
  return sorted.slice(offset, offset + (query.limit ?? DEFAULT_LIMIT));
}

/** A bound check that passes when the bound is absent. */
export const within = (
  value: number | string,
  min: number | string | undefined,
  max: number | string | undefined,
): boolean => (min === undefined || value >= min) && (max === undefined || value <= max);

export const inList = <T>(value: T, list: readonly T[] | undefined): boolean =>
  list === undefined || list.includes(value);

export const equalsIfSet = <T>(value: T, wanted: T | undefined): boolean => wanted === undefined || value === wanted;
