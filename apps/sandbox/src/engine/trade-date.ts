import type { DateObject } from './instrument.types.js';

const DAY_MS = 86_400_000;
let cachedDay = Number.NaN;
let cachedDate: Readonly<DateObject> = Object.freeze({ year: 0, month: 0, day: 0 });

/**
 * The trade date of an instant: its UTC calendar day (the sandbox has no evening session that would
 * roll the date early). Every execution asks for it, so one frozen object per day is shared.
 */
export function tradeDateOf(ms: number): Readonly<DateObject> {
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    const date = new Date(day * DAY_MS);
    cachedDay = day;
    cachedDate = Object.freeze({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() });
  }
  return cachedDate;
}

/** Compares date objects as numbers (yyyymmdd), for trade-date range filters. */
export function dateKey(date: DateObject): number {
  return date.year * 10_000 + date.month * 100 + date.day;
}
