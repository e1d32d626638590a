import type { InstrumentListRequest } from '../wire/exchange-request.wire.js';

import type { Instrument } from '../../engine/index.js';
import { SurfaceError } from '../../shared/surface-error.js';
import { fieldFilterTest } from './field-filter.js';
import { clearingSymOf, columnNamed, eventCategoryOf, eventSeriesOf, isoDateOf } from './instrument-columns.js';
import { WhereClauseError, likeMatcher, parseWhereClause } from './where-clause.js';

type Test = (instrument: Instrument) => boolean;

export interface InstrumentPage {
  instruments: Instrument[];
  /** Empty when there is no more (spec 4.1). */
  nextPageToken: string;
  eof: boolean;
}

const TOKEN_KIND = 'instruments';

/** Every filter of spec 4.1 that the request sets, as tests that must all hold. */
function testsOf(request: InstrumentListRequest): Test[] {
  const tests: Test[] = [];
  const { symbols, states, tradableFilter, filter } = request;
  if (symbols && symbols.length > 0) tests.push((i) => symbols.includes(i.symbol));
  if (request.productId) tests.push((i) => i.productId === request.productId);
  if (tradableFilter === 'TRADABLE_FILTER_TRADABLE') tests.push((i) => !i.nonTradable);
  if (tradableFilter === 'TRADABLE_FILTER_NON_TRADABLE') tests.push((i) => i.nonTradable);
  if (states && states.length > 0) tests.push((i) => states.includes(i.state));
  if (request.eventSeries) tests.push((i) => eventSeriesOf(i) === request.eventSeries);
  if (request.eventCategory) tests.push((i) => eventCategoryOf(i) === request.eventCategory);
  if (request.clearingSym) tests.push((i) => clearingSymOf(i).startsWith(request.clearingSym ?? ''));
  const { startTimeGte, startTimeLte, endTimeGte, endTimeLte } = request;
  if (startTimeGte) tests.push((i) => isoDateOf(i.startDate) >= startTimeGte);
  if (startTimeLte) tests.push((i) => isoDateOf(i.startDate) <= startTimeLte);
  if (endTimeGte) tests.push((i) => isoDateOf(i.expirationDate) >= endTimeGte);
  if (endTimeLte) tests.push((i) => isoDateOf(i.expirationDate) <= endTimeLte);
  if (filter?.whereClause) tests.push(...whereTests(filter.whereClause));
  filter?.fieldFilters?.forEach((fieldFilter, index) => tests.push(fieldFilterTest(fieldFilter, index)));
  return tests;
}

function whereTests(clause: string): Test[] {
  try {
    return parseWhereClause(clause).map(({ column, operator, value }) => {
      const read = columnNamed(column) as (instrument: Instrument) => string | number;
      const matches = operator === 'LIKE' ? likeMatcher(value) : (actual: string) => actual === value;
      return (instrument: Instrument) => matches(String(read(instrument)));
    });
  } catch (error) {
    if (error instanceof WhereClauseError) throw new SurfaceError(400, `filter.${error.message}`);
    throw error;
  }
}

/** One page of the instruments the request selects, in listing order; the token is the offset into that selection. */
export function listInstruments(all: readonly Instrument[], request: InstrumentListRequest): InstrumentPage {
  const tests = testsOf(request);
  const selected = all.filter((instrument) => tests.every((test) => test(instrument)));
  const from = offsetOf(request.pageToken, selected.length);
  const to = from + request.pageSize;
  const eof = to >= selected.length;
  return {
    instruments: selected.slice(from, to),
    nextPageToken: eof ? '' : Buffer.from(`${TOKEN_KIND}:${to}`).toString('base64url'),
    eof,
  };
}

function offsetOf(token: string | undefined, length: number): number {
  if (!token) return 0;
  const [kind, at] = Buffer.from(token, 'base64url').toString().split(':');
  const offset = Number(at);
  if (kind !== TOKEN_KIND || !Number.isSafeInteger(offset) || offset < 0 || offset > length) {
    throw new SurfaceError(400, 'pageToken: not a token this listing issued');
  }
  return offset;
}
