import { type BucketDeclaration, routeBudget } from '@lib/ratelimit';

/** The catalog's one published limit, counted per source IP. */
export const CATALOG_BUCKETS: readonly BucketDeclaration[] = [
  {
    name: 'catalog.public',
    scope: 'ip',
    window: true,
    limit: 20,
    windowSeconds: 1,
    source: 'spec §8: 20 per second per IP',
  },
];

export const CATALOG_BUCKET_NAMES = CATALOG_BUCKETS.map((b) => b.name);

/** The buckets each catalog operation takes. */
export const CATALOG_BUDGETS = {
  publicCall: routeBudget('read', 'catalog.public'),
} as const;
