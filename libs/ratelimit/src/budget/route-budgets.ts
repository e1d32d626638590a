import type { BucketName, RequestClass } from './limits.types.js';
import type { TakeRequest } from './take-plan.js';

/** What one upstream operation spends: its buckets, all taken at once, and its priority class. */
export interface RouteBudget {
  readonly buckets: readonly BucketName[];
  readonly class: RequestClass;
  /** The priority lane (take-plan.ts PRIORITY_LANE): the kill switch's cancels only. */
  readonly priority?: boolean;
}

const budget = (klass: RequestClass, ...buckets: BucketName[]): RouteBudget => ({ buckets, class: klass });

/**
 * Every retail call also spends `retail.all` (spec §8: 2,000 per 10 s, all retail combined) and
 * `retail.key` (upstream-facts: 20 requests/s per API key); all three are counted per key.
 */
const retail = (klass: RequestClass, bucket?: BucketName): RouteBudget => (bucket ? budget(klass, bucket, 'retail.all', 'retail.key') : budget(klass, 'retail.all', 'retail.key'));

/** The buckets each upstream operation takes, for routes to declare instead of spelling bucket names. */
export const ROUTE_BUDGETS = {
  retail: {
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
  },
  exchange: {
    insertOrder: budget('write', 'exchange.orders.insert'),
    /** Cancel-replace shares the insert figure (upstream-facts: "insert and cancel-replace"). */
    replaceOrder: budget('write', 'exchange.orders.insert'),
    cancelOrder: budget('cancel', 'exchange.orders.cancel'),
    batchInsert: budget('write', 'exchange.orders.batch'),
    batchReplace: budget('write', 'exchange.orders.batch'),
    batchCancel: budget('cancel', 'exchange.orders.batch'),
    /** The kill switch's cancels (halt-and-cancel, cancel-on-disconnect, dead-man's switch): the same bucket, in the priority lane. */
    priorityCancel: { ...budget('cancel', 'exchange.orders.cancel'), priority: true },
    tradeStats: budget('read', 'exchange.trade-stats'),
    instruments: budget('read', 'exchange.instruments'),
    symbols: budget('read', 'exchange.instruments'),
    orderBook: budget('read', 'exchange.book'),
    bbo: budget('read', 'exchange.book'),
    searchOrders: budget('read', 'exchange.search'),
    searchTrades: budget('read', 'exchange.search'),
    settlement: budget('read', 'exchange.settlement'),
    publicCall: budget('read', 'exchange.public'),
  },
  catalog: {
    publicCall: budget('read', 'catalog.public'),
  },
} as const satisfies Record<string, Record<string, RouteBudget>>;

/**
 * A take request for a route on behalf of a team; `cost` counts the operations of a batch where a bucket
 * counts them; `account` names the retail API key for per-key buckets.
 */
export function budgetFor(route: RouteBudget, team: string | undefined, cost?: number, account?: string, laneInUse = false): TakeRequest {
  const lane = route.priority ? { priority: true } : laneInUse && route.class === 'cancel' ? { yieldsLane: true } : {};
  return { buckets: route.buckets, class: route.class, ...lane, ...(team === undefined ? {} : { team }), ...(cost === undefined ? {} : { cost }), ...(account === undefined ? {} : { account }) };
}
