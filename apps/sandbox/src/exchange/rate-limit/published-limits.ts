import type { BucketLimit } from '../../shared/token-bucket.js';

/** The exchange's published per-firm limit classes (upstream-facts "Exchange surface"), plus the per-IP public one. */
export const EXCHANGE_LIMIT_CLASSES = [
  'order-entry',
  'cancel',
  'batch',
  'trade-stats',
  'instruments',
  'book',
  'search',
  'public',
] as const;
export type ExchangeLimitClass = (typeof EXCHANGE_LIMIT_CLASSES)[number];

export const EXCHANGE_TIERS = ['T1', 'T2', 'T3', 'T4'] as const;
export type ExchangeTier = (typeof EXCHANGE_TIERS)[number];

export type { BucketLimit };

const perSecond = (limit: number): BucketLimit => ({ limit, perSeconds: 1 });
const perMinute = (limit: number): BucketLimit => ({ limit, perSeconds: 60 });
const byTier = (t1: number, t2: number, t3: number, t4: number): Record<ExchangeTier, BucketLimit> => ({
  T1: perSecond(t1),
  T2: perSecond(t2),
  T3: perSecond(t3),
  T4: perSecond(t4),
});

/**
 * upstream-facts: insert and cancel-replace 30/100/200/400 per second by tier; cancel 90/300/600/1200;
 * batch insert, cancel and cancel-replace 50/s; trade statistics 60/min; list instruments and list
 * symbols 6/min; order book and BBO 12/min; order, execution and trade search 12/min; public 20/s per IP.
 */
const PUBLISHED: Record<ExchangeLimitClass, Record<ExchangeTier, BucketLimit> | BucketLimit> = {
  'order-entry': byTier(30, 100, 200, 400),
  cancel: byTier(90, 300, 600, 1200),
  batch: perSecond(50),
  'trade-stats': perMinute(60),
  instruments: perMinute(6),
  book: perMinute(12),
  search: perMinute(12),
  public: perSecond(20),
};

export function publishedLimit(limitClass: ExchangeLimitClass, tier: ExchangeTier): BucketLimit {
  const entry = PUBLISHED[limitClass];
  return 'limit' in entry ? entry : entry[tier];
}
