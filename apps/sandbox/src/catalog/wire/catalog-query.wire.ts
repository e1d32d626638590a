import { z } from 'zod';

// Catalog queries and paths as the sandbox reads them: names from upstream-facts "Catalog base" and
// spec 4.4 (limit, offset and ids are int32), never from the gateway's schemas. Arrays are repeated
// keys. A parameter the route does not know is refused (400 naming it). Bounds no document states
// (list lengths, text lengths, eventWeek's range, slug spelling beyond "one path segment") are not set.

const INT = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** An int32 written in a query, at least `min`. */
const int32 = (min = -(2 ** 31)) =>
  z.string().regex(INT, 'expected an integer').transform(Number).pipe(z.int32().min(min));
const decimal = () => z.string().regex(DECIMAL, 'expected a decimal number').transform(Number);
const bool = () => z.enum(['true', 'false'], 'expected true or false').transform((value) => value === 'true');
const dateOrTime = () =>
  z.union([z.iso.date(), z.iso.datetime({ offset: true })], 'expected a date or an ISO 8601 date-time');
/** A path segment upstream: not empty, no slash. */
const slug = () => z.string().regex(/^[^/?#\s]+$/, 'expected a slug');
const list = <T extends z.ZodType<unknown, string>>(item: T) =>
  z.union([item.transform((value) => [value]), z.array(item).min(1)]);

const paging = { limit: int32(1).optional(), offset: int32(0).optional() };
const ordering = { orderBy: list(z.string().min(1)).optional(), orderDirection: z.enum(['asc', 'desc']).optional() };
const openClosed = { archived: bool().optional(), active: bool().optional(), closed: bool().optional() };
const amounts = {
  liquidityMin: decimal().optional(),
  liquidityMax: decimal().optional(),
  volumeMin: decimal().optional(),
  volumeMax: decimal().optional(),
};
const categories = list(z.string().min(1)).optional();

export const EventsQuery = z.strictObject({
  ...paging,
  ...ordering,
  id: list(int32(0)).optional(),
  slug: list(slug()).optional(),
  ...openClosed,
  ...amounts,
  startDateMin: dateOrTime().optional(),
  startDateMax: dateOrTime().optional(),
  endDateMin: dateOrTime().optional(),
  endDateMax: dateOrTime().optional(),
  tagId: int32(0).optional(),
  tagSlug: slug().optional(),
  relatedTags: bool().optional(),
  featured: bool().optional(),
  seriesId: list(int32(0)).optional(),
  eventDate: z.iso.date().optional(),
  eventWeek: int32(0).optional(),
  startTimeMin: dateOrTime().optional(),
  startTimeMax: dateOrTime().optional(),
  gameId: int32(0).optional(),
  ended: bool().optional(),
  categories,
});
export type EventsQuery = z.infer<typeof EventsQuery>;

export const MarketsQuery = z.strictObject({
  ...paging,
  ...ordering,
  id: list(int32(0)).optional(),
  slug: list(slug()).optional(),
  eventSlug: list(slug()).optional(),
  ...openClosed,
  ...amounts,
  gameId: int32(0).optional(),
  categories,
});
export type MarketsQuery = z.infer<typeof MarketsQuery>;

export const SeriesQuery = z.strictObject({
  ...paging,
  ...ordering,
  slug: list(slug()).optional(),
  ...openClosed,
  recurrence: z.string().min(1).optional(),
});

export const SearchQuery = z.strictObject({
  query: z.string().optional(),
  limit: paging.limit,
  seriesIds: list(int32(0)).optional(),
  status: z.enum(['active', 'closed', 'upcoming']).optional(),
  page: int32(1).optional(),
});

export const TeamsQuery = z.strictObject({
  teamIds: list(z.string().min(1)).optional(),
  provider: z
    .string()
    .regex(/^PROVIDER_[A-Z0-9_]+$/, 'expected PROVIDER_<NAME>')
    .optional(),
  league: slug().optional(),
});

/** Spec 4.4 league listing (the series listing takes "the same parameters"). */
export const SectionQuery = z.strictObject({
  ...paging,
  excludeEventId: list(int32(0)).optional(),
  type: z.enum(['sport', 'futures']).optional(),
  section: z.enum(['general', 'trending']).optional(),
});
export type SectionQuery = z.infer<typeof SectionQuery>;

export const NoQuery = z.strictObject({});
const numericId = () => z.string().regex(/^\d+$/, 'expected a numeric id');
export const IdParams = z.strictObject({ id: numericId() });
export const SlugParams = z.strictObject({ slug: slug() });
export const SeriesIdParams = z.strictObject({ seriesId: numericId() });

/** Names of the catalog routes in the counters (`catalog.<route>`). */
export type CatalogRouteName =
  | 'bbo'
  | 'book'
  | 'event'
  | 'eventBySlug'
  | 'events'
  | 'leagueEvents'
  | 'market'
  | 'marketBySlug'
  | 'markets'
  | 'search'
  | 'series'
  | 'seriesById'
  | 'seriesEvents'
  | 'settlement'
  | 'sport'
  | 'sports'
  | 'teams';
