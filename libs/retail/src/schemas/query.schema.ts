import { IDENTITY_KEYWORD, isDotOrEmptySegment } from '@lib/core';
import { z } from 'zod';

import { ActivityTypeSchema, SortOrderSchema } from './retail-enums.schema.js';
import { MarketSlugSchema, QueryLimitSchema, repeatedQuery } from './retail-primitives.schema.js';

/** Routes that take no query: any parameter is refused rather than silently dropped. */
export const NoQuerySchema = z.object({}).strict();

/** `GET /v1/orders/open?slugs=a&slugs=b`. */
export const OpenOrdersQuerySchema = z.object({ slugs: repeatedQuery(MarketSlugSchema).optional() }).strict();
export type OpenOrdersQuery = z.infer<typeof OpenOrdersQuerySchema>;

/** `GET /v1/portfolio/positions` (upstream-facts). */
export const PositionsQuerySchema = z
  .object({
    market: MarketSlugSchema.optional(),
    limit: QueryLimitSchema.optional(),
    cursor: z.string().min(1).max(500).optional(),
  })
  .strict();
export type PositionsQuery = z.infer<typeof PositionsQuerySchema>;

/** `GET /v1/portfolio/activities` (spec 4.2): limit default 100, cursor from nextCursor, newest first by default. */
export const ActivitiesQuerySchema = z
  .object({
    limit: QueryLimitSchema.optional(),
    cursor: z.string().min(1).max(500).optional(),
    marketSlug: MarketSlugSchema.optional(),
    types: repeatedQuery(ActivityTypeSchema).optional(),
    sortOrder: SortOrderSchema.optional(),
  })
  .strict();
export type ActivitiesQuery = z.infer<typeof ActivitiesQuerySchema>;

/**
 * Path parameters: order ids are opaque but never contain a slash or a query, and are never a dot
 * segment. An id is an identity: the upstream shows a key only its own orders (404 for another's).
 */
export const OrderIdParamsSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'expected an order id')
      .refine((id) => !isDotOrEmptySegment(id), 'a path parameter may not be "." or ".."')
      .meta({
        [IDENTITY_KEYWORD]: 'retail-order',
        description: 'an order of the retail account the request is signed for (x-retail-account); any other: 404',
      }),
  })
  .strict();
export const SlugParamsSchema = z.object({ slug: MarketSlugSchema }).strict();
