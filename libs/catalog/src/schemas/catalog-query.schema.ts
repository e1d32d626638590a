import { z } from 'zod';

import {
  numericId,
  ordering,
  paging,
  queryBoolean,
  queryDate,
  queryInt,
  queryList,
  queryNumber,
  queryText,
  slug,
} from './query-primitives.js';

// Query names are those the official client sends (upstream-facts "Catalog base"). Every schema is
// strict: a parameter the upstream does not know is refused with its name, not silently dropped.

const openClosed = {
  archived: queryBoolean().optional(),
  active: queryBoolean().optional(),
  closed: queryBoolean().optional(),
};

const amounts = {
  liquidityMin: queryNumber().optional(),
  liquidityMax: queryNumber().optional(),
  volumeMin: queryNumber().optional(),
  volumeMax: queryNumber().optional(),
};

const categories = queryList(queryText(64)).optional();

export const EventsQuerySchema = z
  .object({
    ...paging,
    ...ordering,
    id: queryList(queryInt(0)).optional(),
    slug: queryList(slug()).optional(),
    ...openClosed,
    ...amounts,
    startDateMin: queryDate().optional(),
    startDateMax: queryDate().optional(),
    endDateMin: queryDate().optional(),
    endDateMax: queryDate().optional(),
    tagId: queryInt(0).optional(),
    tagSlug: slug().optional(),
    relatedTags: queryBoolean().optional(),
    featured: queryBoolean().optional(),
    seriesId: queryList(queryInt(0)).optional(),
    eventDate: z.iso.date().optional(),
    eventWeek: queryInt(0, 60).optional(),
    startTimeMin: queryDate().optional(),
    startTimeMax: queryDate().optional(),
    gameId: queryInt(0).optional(),
    ended: queryBoolean().optional(),
    categories,
  })
  .strict();

export const MarketsQuerySchema = z
  .object({
    ...paging,
    ...ordering,
    id: queryList(queryInt(0)).optional(),
    slug: queryList(slug()).optional(),
    eventSlug: queryList(slug()).optional(),
    ...openClosed,
    ...amounts,
    gameId: queryInt(0).optional(),
    categories,
  })
  .strict();

/** The official client's series listing parameters (its SeriesListParams). */
export const SeriesQuerySchema = z
  .object({
    ...paging,
    ...ordering,
    slug: queryList(slug()).optional(),
    ...openClosed,
    recurrence: queryText(32).optional(),
  })
  .strict();

export const SEARCH_STATUSES = ['active', 'closed', 'upcoming'] as const;

export const SearchQuerySchema = z
  .object({
    query: queryText(200).optional(),
    limit: paging.limit,
    seriesIds: queryList(queryInt(0)).optional(),
    status: z.enum(SEARCH_STATUSES).optional(),
    page: queryInt(1, 100_000).optional(),
  })
  .strict();

export const TeamsQuerySchema = z
  .object({
    teamIds: queryList(queryText(64)).optional(),
    provider: z
      .string()
      .regex(/^PROVIDER_[A-Z0-9_]{1,60}$/, 'expected PROVIDER_<NAME>')
      .optional(),
    league: slug().optional(),
  })
  .strict();

export const LISTING_TYPES = ['sport', 'futures'] as const;
export const LISTING_SECTIONS = ['general', 'trending'] as const;

/**
 * spec §4.4: the league listing's names; the series listing takes "the same parameters" without
 * naming them, so it uses these names too.
 */
export const SectionQuerySchema = z
  .object({
    ...paging,
    excludeEventId: queryList(queryInt(0)).optional(),
    type: z.enum(LISTING_TYPES).optional(),
    section: z.enum(LISTING_SECTIONS).optional(),
  })
  .strict();

/** Routes without parameters still refuse unknown ones. */
export const NoQuerySchema = z.object({}).strict();

export const IdParamsSchema = z.object({ id: numericId() }).strict();
export const SlugParamsSchema = z.object({ slug: slug() }).strict();
export const SeriesIdParamsSchema = z.object({ seriesId: numericId() }).strict();
export const NoParamsSchema = z.object({}).strict();

export type EventsQuery = z.infer<typeof EventsQuerySchema>;
export type MarketsQuery = z.infer<typeof MarketsQuerySchema>;
export type SeriesQuery = z.infer<typeof SeriesQuerySchema>;
export type SearchQuery = z.infer<typeof SearchQuerySchema>;
export type TeamsQuery = z.infer<typeof TeamsQuerySchema>;
export type SectionQuery = z.infer<typeof SectionQuerySchema>;
export type NoQuery = z.infer<typeof NoQuerySchema>;
export type IdParams = z.infer<typeof IdParamsSchema>;
export type SlugParams = z.infer<typeof SlugParamsSchema>;
export type SeriesIdParams = z.infer<typeof SeriesIdParamsSchema>;
