import { type BucketDeclaration, type RequestClass, type RouteBudget, routeBudget } from '@lib/ratelimit';

/** spec §8 publishes "N requests per 10 seconds" per API key (upstream-facts "Retail extras": the figures are the key's). */
const per10s = (name: string, limit: number, what: string): BucketDeclaration => ({
  name,
  scope: 'key',
  window: true,
  limit,
  windowSeconds: 10,
  source: `spec §8: ${what} ${limit} per 10 s`,
});

/** The retail buckets, all counted per API key. */
export const RETAIL_BUCKETS: readonly BucketDeclaration[] = [
  per10s('retail.orders.create', 440, 'create order'),
  per10s('retail.orders.cancel', 440, 'cancel order'),
  per10s('retail.orders.modify', 440, 'modify order'),
  per10s('retail.orders.cancel-all', 110, 'cancel all orders'),
  per10s('retail.orders.close-position', 220, 'close position'),
  per10s('retail.orders.open', 55, 'open orders'),
  per10s('retail.orders.get', 55, 'get order'),
  { ...per10s('retail.all', 2_000, 'all retail combined'), keepsPriorityReserve: true },
  // Read as a sliding second. Burst 2 + refill 14/s = 16 decisions in any second: the 4 left of 20 absorb sends that reach
  // the upstream bunched (decisions of several instances taken over 1.29 s may arrive within one second). A burst of 4
  // left 2, and a starved CI machine bunched more than that (21 of 20 at the sandbox). The burst still holds the cancel
  // reserve. A request refused here is paced (held up to one window) rather than refused: a quick sequence of one key's calls is normal use.
  {
    name: 'retail.key',
    scope: 'key',
    window: true,
    limit: 20,
    windowSeconds: 1,
    safetyMargin: 0.7,
    burst: 2,
    paceMs: 1_000,
    keepsPriorityReserve: true,
    source: 'upstream-facts "Retail extras": 20 requests/s per API key',
  },
];

export const RETAIL_BUCKET_NAMES = RETAIL_BUCKETS.map((b) => b.name);

/**
 * Every retail call also spends `retail.all` (spec §8: 2,000 per 10 s, all retail combined) and
 * `retail.key` (upstream-facts: 20 requests/s per API key); all three are counted per key.
 */
const retail = (klass: RequestClass, bucket?: string): RouteBudget =>
  bucket ? routeBudget(klass, bucket, 'retail.all', 'retail.key') : routeBudget(klass, 'retail.all', 'retail.key');

/** The buckets each retail operation takes, for the calls to declare instead of spelling bucket names. */
export const RETAIL_BUDGETS = {
  createOrder: retail('write', 'retail.orders.create'),
  previewOrder: retail('read'),
  cancelOrder: retail('cancel', 'retail.orders.cancel'),
  modifyOrder: retail('write', 'retail.orders.modify'),
  cancelAllOrders: retail('cancel', 'retail.orders.cancel-all'),
  closePosition: retail('write', 'retail.orders.close-position'),
  openOrders: retail('read', 'retail.orders.open'),
  getOrder: retail('read', 'retail.orders.get'),
  positions: retail('read'),
  activities: retail('read'),
  balances: retail('read'),
  marketData: retail('read'),
} as const;
