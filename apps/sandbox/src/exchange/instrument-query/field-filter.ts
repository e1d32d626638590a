import type { FieldFilter } from '../wire/exchange-request.wire.js';

import type { Instrument } from '../../engine/index.js';
import { SurfaceError } from '../../shared/surface-error.js';
import { FILTERABLE_COLUMNS, columnNamed } from './instrument-columns.js';
import { likeMatcher } from './where-clause.js';

type Test = (instrument: Instrument) => boolean;

/** The filter's one scalar value (the request schema guarantees exactly one for scalar operators). */
function scalarOf(filter: FieldFilter): string | number {
  if (filter.doubleValue !== undefined) return filter.doubleValue;
  if (filter.intValue !== undefined) return Number(filter.intValue);
  return filter.stringValue ?? '';
}

/** Numbers compare as numbers when both sides are numeric, everything else as text (ISO dates sort as text). */
function compare(actual: string | number, expected: string | number): number {
  const b = Number(expected);
  if (typeof actual === 'number' && !Number.isNaN(b)) return actual - b;
  const [x, y] = [String(actual), String(expected)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** One field filter of spec 4.1 (operators of upstream-facts) as a test; an unknown field is a 400. */
export function fieldFilterTest(filter: FieldFilter, index: number): Test {
  const column = columnNamed(filter.field);
  if (!column) {
    throw new SurfaceError(
      400,
      `filter.fieldFilters.${index}.field: unknown field ${filter.field}; known: ${FILTERABLE_COLUMNS.join(', ')}`,
    );
  }
  if (filter.operator === 'FILTER_OPERATOR_IN' || filter.operator === 'FILTER_OPERATOR_NOT_IN') {
    const values = new Set(filter.stringList?.values ?? []);
    const wanted = filter.operator === 'FILTER_OPERATOR_IN';
    return (instrument) => values.has(String(column(instrument))) === wanted;
  }
  const value = scalarOf(filter);
  switch (filter.operator) {
    case 'FILTER_OPERATOR_EQ':
      return (instrument) => compare(column(instrument), value) === 0;
    case 'FILTER_OPERATOR_NE':
      return (instrument) => compare(column(instrument), value) !== 0;
    case 'FILTER_OPERATOR_LT':
      return (instrument) => compare(column(instrument), value) < 0;
    case 'FILTER_OPERATOR_LE':
      return (instrument) => compare(column(instrument), value) <= 0;
    case 'FILTER_OPERATOR_GT':
      return (instrument) => compare(column(instrument), value) > 0;
    case 'FILTER_OPERATOR_GE':
      return (instrument) => compare(column(instrument), value) >= 0;
    case 'FILTER_OPERATOR_LIKE': {
      const matches = likeMatcher(String(value));
      return (instrument) => matches(String(column(instrument)));
    }
    default:
      throw new SurfaceError(400, `filter.fieldFilters.${index}.operator: ${filter.operator} is not a comparison`);
  }
}
