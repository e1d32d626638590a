import type { DateObject, Instrument } from '../../engine/index.js';

/**
 * What the sandbox answers for the columns the filters name. Upstream does not describe series,
 * category or clearing symbol further: the series is the league (lower case, "nfl"), the category
 * the metadata's `category` or SPORTS, and the clearing symbol the symbol itself.
 */
export const eventSeriesOf = (instrument: Instrument): string => instrument.metadata.league ?? '';
export const eventCategoryOf = (instrument: Instrument): string => instrument.metadata.category ?? 'SPORTS';
export const clearingSymOf = (instrument: Instrument): string => instrument.symbol;

export function isoDateOf(date: DateObject): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

type Column = (instrument: Instrument) => string | number;

/** Filterable columns in snake_case (the whereClause's spelling); field filters may also use camelCase. */
const COLUMNS: Record<string, Column> = {
  symbol: (i) => i.symbol,
  state: (i) => i.state,
  event_series: eventSeriesOf,
  event_category: eventCategoryOf,
  clearing_sym: clearingSymOf,
  clearing_house: (i) => i.clearingHouse,
  product_id: (i) => i.productId,
  description: (i) => i.description,
  base_currency: (i) => i.baseCurrency,
  settlement_currency: (i) => i.settlementCurrency,
  tick_size: (i) => i.tickSize,
  multiplier: (i) => i.multiplier,
  non_tradable: (i) => String(i.nonTradable),
  start_date: (i) => isoDateOf(i.startDate),
  expiration_date: (i) => isoDateOf(i.expirationDate),
  termination_date: (i) => isoDateOf(i.terminationDate),
};

/** The column a filter names (`product_id` or `productId`), or undefined when there is no such column. */
export function columnNamed(field: string): Column | undefined {
  const snake = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return Object.hasOwn(COLUMNS, snake) ? COLUMNS[snake] : undefined;
}

export const FILTERABLE_COLUMNS = Object.keys(COLUMNS);
