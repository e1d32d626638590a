import type { ExchangeTier } from '../config/exchange-tier.config.js';
import { type BucketDeclaration, routeBudget } from '@lib/ratelimit';

// upstream-facts "Published per-firm rate limits": insert and cancel-replace 30/100/200/400 per second; cancel 90/300/600/1200 per second.
const ORDER_ENTRY_PER_SECOND: Record<ExchangeTier, { insert: number; cancel: number }> = {
  T1: { insert: 30, cancel: 90 },
  T2: { insert: 100, cancel: 300 },
  T3: { insert: 200, cancel: 600 },
  T4: { insert: 400, cancel: 1200 },
};

const FACTS = 'upstream-facts "Published per-firm rate limits"';

/** The exchange's published per-firm buckets (token buckets, counted per firm); order entry depends on the tier (`limits.exchangeTier`). */
export function exchangeBuckets(tier: ExchangeTier): BucketDeclaration[] {
  const entry = ORDER_ENTRY_PER_SECOND[tier];
  return [
    // Insert and cancel-replace are published as one figure; one shared bucket is the reading that cannot overshoot.
    {
      name: 'exchange.orders.insert',
      scope: 'firm',
      limit: entry.insert,
      windowSeconds: 1,
      source: `${FACTS}: insert and cancel-replace, ${tier}`,
    },
    // The kill switch's cancels spend this bucket in its priority lane.
    {
      name: 'exchange.orders.cancel',
      scope: 'firm',
      limit: entry.cancel,
      windowSeconds: 1,
      priorityLane: true,
      source: `${FACTS}: cancel, ${tier}`,
    },
    {
      name: 'exchange.orders.batch',
      scope: 'firm',
      limit: 50,
      windowSeconds: 1,
      source: `${FACTS}: batch operations 50/s, every tier`,
    },
    {
      name: 'exchange.trade-stats',
      scope: 'firm',
      limit: 60,
      windowSeconds: 60,
      source: `${FACTS}: trade statistics 60/min`,
    },
    {
      name: 'exchange.instruments',
      scope: 'firm',
      limit: 6,
      windowSeconds: 60,
      source: `${FACTS}: instruments and symbols 6/min`,
    },
    {
      name: 'exchange.book',
      scope: 'firm',
      limit: 12,
      windowSeconds: 60,
      source: `${FACTS}: order book and BBO 12/min`,
    },
    {
      name: 'exchange.search',
      scope: 'firm',
      limit: 12,
      windowSeconds: 60,
      source: `${FACTS}: order, execution, trade search 12/min`,
    },
    {
      name: 'exchange.settlement',
      scope: 'firm',
      limit: 10,
      windowSeconds: 1,
      source: `${FACTS}: instrument settlement 10/s`,
    },
    {
      name: 'exchange.public',
      scope: 'ip',
      limit: 20,
      windowSeconds: 1,
      source: `${FACTS}: public endpoints 20/s per IP`,
    },
  ];
}

/** Every exchange bucket's name (the same for every tier): what config may override and team shares may name. */
export const EXCHANGE_BUCKET_NAMES = exchangeBuckets('T1').map((b) => b.name);

const spend = routeBudget;

/** The buckets each exchange operation takes, for the calls to declare instead of spelling bucket names. */
export const EXCHANGE_BUDGETS = {
  insertOrder: spend('write', 'exchange.orders.insert'),
  /** Cancel-replace shares the insert figure (upstream-facts: "insert and cancel-replace"). */
  replaceOrder: spend('write', 'exchange.orders.insert'),
  cancelOrder: spend('cancel', 'exchange.orders.cancel'),
  batchInsert: spend('write', 'exchange.orders.batch'),
  batchReplace: spend('write', 'exchange.orders.batch'),
  batchCancel: spend('cancel', 'exchange.orders.batch'),
  /** The kill switch's cancels (halt-and-cancel, cancel-on-disconnect, dead-man's switch): the same bucket, in the priority lane. */
  priorityCancel: { ...spend('cancel', 'exchange.orders.cancel'), priority: true },
  tradeStats: spend('read', 'exchange.trade-stats'),
  instruments: spend('read', 'exchange.instruments'),
  symbols: spend('read', 'exchange.instruments'),
  orderBook: spend('read', 'exchange.book'),
  bbo: spend('read', 'exchange.book'),
  searchOrders: spend('read', 'exchange.search'),
  searchTrades: spend('read', 'exchange.search'),
  settlement: spend('read', 'exchange.settlement'),
  publicCall: spend('read', 'exchange.public'),
} as const;
