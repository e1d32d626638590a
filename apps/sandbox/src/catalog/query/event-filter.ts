import type { EventEntry, MarketEntry } from '../fixture/catalog-model.js';
import { equalsIfSet, inList, within } from './sort-page.js';
import type { EventsQuery, MarketsQuery } from '../wire/catalog-query.wire.js';

/** Date bounds compare as ISO text; a bare date bound covers its whole day at the upper end. */
const upper = (bound: string | undefined) =>
  bound !== undefined && bound.length === 10 ? `${bound}T23:59:59.999Z` : bound;

function tagMatches(
  entry: EventEntry,
  tagId: number | undefined,
  tagSlug: string | undefined,
  related: boolean,
): boolean {
  if (tagId === undefined && tagSlug === undefined) return true;
  const hit = (t: { id: string; slug: string }) =>
    (tagId === undefined || t.id === String(tagId)) && (tagSlug === undefined || t.slug === tagSlug);
  return entry.event.tags.some((t) => hit(t) || (related && t.subtags.some(hit)));
}

/** The /v1/events filters (upstream-facts names), each one a no-op when absent. */
export function eventMatches(entry: EventEntry, q: EventsQuery): boolean {
  const e = entry.event;
  return (
    inList(Number(e.id), q.id) &&
    inList(e.slug, q.slug) &&
    equalsIfSet(e.archived, q.archived) &&
    equalsIfSet(e.active, q.active) &&
    equalsIfSet(e.closed, q.closed) &&
    within(e.liquidity, q.liquidityMin, q.liquidityMax) &&
    within(e.volume, q.volumeMin, q.volumeMax) &&
    within(e.startDate, q.startDateMin, upper(q.startDateMax)) &&
    within(e.endDate, q.endDateMin, upper(q.endDateMax)) &&
    tagMatches(entry, q.tagId, q.tagSlug, q.relatedTags ?? false) &&
    equalsIfSet(e.featured, q.featured) &&
    inList(entry.seriesId, q.seriesId) &&
    equalsIfSet(e.eventDate, q.eventDate) &&
    equalsIfSet(entry.eventWeek, q.eventWeek) &&
    within(e.startTime, q.startTimeMin, upper(q.startTimeMax)) &&
    equalsIfSet(e.gameId, q.gameId) &&
    equalsIfSet(e.ended, q.ended) &&
    inList(e.category, q.categories)
  );
}

/** The /v1/markets filters. */
export function marketMatches(entry: MarketEntry, q: MarketsQuery): boolean {
  const m = entry.market;
  return (
    inList(Number(m.id), q.id) &&
    inList(m.slug, q.slug) &&
    inList(m.eventSlug, q.eventSlug) &&
    equalsIfSet(m.archived, q.archived) &&
    equalsIfSet(m.active, q.active) &&
    equalsIfSet(m.closed, q.closed) &&
    within(m.liquidity, q.liquidityMin, q.liquidityMax) &&
    within(m.volume, q.volumeMin, q.volumeMax) &&
    equalsIfSet(entry.event.event.gameId, q.gameId) &&
    inList(m.category, q.categories)
  );
}
