import { z } from 'zod';

/** Request classes the budget tells apart: reads may not eat the reserve kept for order entry and cancels. */
export const REQUEST_CLASSES = ['read', 'write', 'cancel'] as const;
export type RequestClass = (typeof REQUEST_CLASSES)[number];

/** upstream-facts "Published per-firm rate limits": order entry limits depend on the firm's tier. */
export const EXCHANGE_TIERS = ['T1', 'T2', 'T3', 'T4'] as const;
export type ExchangeTier = (typeof EXCHANGE_TIERS)[number];

/** Stable bucket names: metrics, admin views, config overrides and route declarations all use them. */
export const BUCKET_NAMES = [
  'retail.orders.create',
  'retail.orders.cancel',
  'retail.orders.modify',
  'retail.orders.cancel-all',
  'retail.orders.close-position',
  'retail.orders.open',
  'retail.orders.get',
  'retail.all',
  'retail.key',
  'exchange.orders.insert',
  'exchange.orders.cancel',
  'exchange.orders.batch',
  'exchange.trade-stats',
  'exchange.instruments',
  'exchange.book',
  'exchange.search',
  'exchange.settlement',
  'exchange.public',
  'catalog.public',
] as const;
export type BucketName = (typeof BUCKET_NAMES)[number];

/**
 * What the upstream counts a bucket per: the firm (exchange figures are per-firm token buckets), each
 * retail API key (spec §8 and the 20/s are per key), the source IP (public endpoints), or the
 * deployment (one bucket for this gateway fleet, whatever it serves).
 */
export const BUCKET_SCOPES = ['firm', 'key', 'ip', 'deployment'] as const;
export type BucketScope = (typeof BUCKET_SCOPES)[number];

interface DocumentedLimit {
  limit: number;
  windowSeconds: number;
  scope: BucketScope;
  /**
   * Published as "N requests per window" (spec §8) rather than as a token bucket. A bucket may admit
   * its burst plus a window's refill within one window, so its default burst is half of
   * limit × (1 − safetyMargin): burst + refill stays below the limit in every sliding window, and the
   * other half is slack for jitter between admission here and arrival upstream (spec §8 counts
   * "requests / 10 seconds"; upstream-facts calls only the exchange figures token buckets).
   */
  window?: boolean;
  /** Defaults of a bucket whose published figure does not fit the general rule (see retail.key). */
  safetyMargin?: number;
  burst?: number;
  /** The longest a request refused by this bucket alone is held for it (paced) before a 429; default 0. */
  paceMs?: number;
}

const ORDER_ENTRY_PER_SECOND: Record<ExchangeTier, { insert: number; cancel: number }> = {
  // upstream-facts: insert and cancel-replace 30/100/200/400 per second; cancel 90/300/600/1200 per second.
  T1: { insert: 30, cancel: 90 },
  T2: { insert: 100, cancel: 300 },
  T3: { insert: 200, cancel: 600 },
  T4: { insert: 400, cancel: 1200 },
};

/** The published limits, before the safety margin. */
export function documentedLimits(tier: ExchangeTier): Record<BucketName, DocumentedLimit> {
  const entry = ORDER_ENTRY_PER_SECOND[tier];
  return {
    // Retail limits are counted per API key (upstream-facts "Retail extras": the 20/s is per key, and §8's figures are the key's).
    'retail.orders.create': { scope: 'key', window: true, limit: 440, windowSeconds: 10 }, // spec §8: 440 per 10 s
    'retail.orders.cancel': { scope: 'key', window: true, limit: 440, windowSeconds: 10 }, // spec §8: 440 per 10 s each
    'retail.orders.modify': { scope: 'key', window: true, limit: 440, windowSeconds: 10 }, // spec §8: 440 per 10 s each
    'retail.orders.cancel-all': { scope: 'key', window: true, limit: 110, windowSeconds: 10 }, // spec §8: 110 per 10 s
    'retail.orders.close-position': { scope: 'key', window: true, limit: 220, windowSeconds: 10 }, // spec §8: 220 per 10 s
    'retail.orders.open': { scope: 'key', window: true, limit: 55, windowSeconds: 10 }, // spec §8: 55 per 10 s
    'retail.orders.get': { scope: 'key', window: true, limit: 55, windowSeconds: 10 }, // spec §8: 55 per 10 s
    'retail.all': { scope: 'key', window: true, limit: 2_000, windowSeconds: 10 }, // spec §8: 2,000 per 10 s, all retail combined
    // upstream-facts "Retail extras": 20 requests/s per API key, read as a sliding second. Burst 4 + refill 14/s
    // = 18 in any second (0.9 of 20); the burst leaves room for a cancel reserve. A request refused here is
    // paced (held up to one window) rather than refused: a quick sequence of one key's calls is normal use.
    'retail.key': { scope: 'key', window: true, limit: 20, windowSeconds: 1, safetyMargin: 0.7, burst: 4, paceMs: 1_000 },
    // Insert and cancel-replace are published as one figure; one shared bucket is the reading that cannot overshoot.
    'exchange.orders.insert': { scope: 'firm', limit: entry.insert, windowSeconds: 1 },
    'exchange.orders.cancel': { scope: 'firm', limit: entry.cancel, windowSeconds: 1 },
    'exchange.orders.batch': { scope: 'firm', limit: 50, windowSeconds: 1 }, // upstream-facts: batch operations 50/s, every tier
    'exchange.trade-stats': { scope: 'firm', limit: 60, windowSeconds: 60 }, // upstream-facts: 60/min
    'exchange.instruments': { scope: 'firm', limit: 6, windowSeconds: 60 }, // upstream-facts: instruments and symbols 6/min
    'exchange.book': { scope: 'firm', limit: 12, windowSeconds: 60 }, // upstream-facts: order book and BBO 12/min
    'exchange.search': { scope: 'firm', limit: 12, windowSeconds: 60 }, // upstream-facts: order, execution, trade search 12/min
    'exchange.settlement': { scope: 'firm', limit: 10, windowSeconds: 1 }, // upstream-facts: instrument settlement 10/s
    'exchange.public': { scope: 'ip', limit: 20, windowSeconds: 1 }, // upstream-facts: 20/s per IP
    'catalog.public': { scope: 'ip', window: true, limit: 20, windowSeconds: 1 }, // spec §8: 20 per second per IP
  };
}

const fraction = z.number().gt(0).max(1);
const reserveFraction = z.number().min(0).lt(1);

const BucketOverrideSchema = z
  .object({
    limit: z.number().positive(),
    windowSeconds: z.number().positive(),
    safetyMargin: fraction,
    /** Capacity in requests; default: the whole margined limit, or half the margin for a limit published per window. */
    burst: z.number().positive(),
    /** Fraction of the capacity that reads may not take. */
    reserve: reserveFraction,
    /** What the upstream counts the bucket per (default: as documented, see BUCKET_SCOPES). */
    scope: z.enum(BUCKET_SCOPES),
    /** Milliseconds a request refused by this bucket alone waits for it before a 429 (pacing). */
    paceMs: z.number().min(0).max(10_000),
  })
  .partial()
  .strict();

export interface ResolvedBucketLimit {
  limit: number;
  windowSeconds: number;
  safetyMargin: number;
  /** The bucket's capacity: configured, or the default for its kind (see DocumentedLimit.window). */
  burst: number;
  reserve: number;
  scope: BucketScope;
  paceMs: number;
}

export const LimitsSchema = z
  .object({
    exchangeTier: z.enum(EXCHANGE_TIERS).default('T1'),
    /** Stay under the published figures so clock drift and in-flight requests do not earn 429s. */
    safetyMargin: fraction.default(0.9),
    /** Fraction of retail.all kept for cancels and order entry (reads never see it). */
    priorityReserve: reserveFraction.default(0.2),
    buckets: z.partialRecord(z.enum(BUCKET_NAMES), BucketOverrideSchema).default({}),
    /** Classes refused, rather than answered from local buckets, while Redis is unreachable. */
    failClosed: z.array(z.enum(REQUEST_CLASSES)).default([]),
    heartbeatMs: z.number().int().positive().default(1_000),
    /** An instance silent this long is presumed cut off from Redis and deciding locally: its local share is reserved. */
    instanceTtlMs: z.number().int().positive().default(3_000),
    /** How long a silent instance's share stays reserved before it is forgotten (a crash looks like a cut-off). */
    staleReserveMs: z.number().int().positive().default(60_000),
    /**
     * The fleet size an instance assumes when it cannot count its peers (Redis unreachable since it
     * started): local buckets are sized 1/max(this, last count seen). Never assume being alone.
     */
    expectedInstances: z.number().int().positive().default(3),
    /** Redis timeouts in a row before an instance goes local; one late answer under CPU pressure is not an outage. */
    degradeAfterTimeouts: z.number().int().positive().default(3),
    probeMs: z.number().int().positive().default(1_000),
    /**
     * A shared-budget answer processed later than this after its call was sent is refused (its tokens stay
     * spent): on a starved event loop the request would reach the upstream that much after the decision,
     * bunched with later ones, past the jitter the margin allows (the Redis command timeout may be longer).
     */
    maxDecisionAgeMs: z.number().int().positive().default(50),
    /**
     * How much of a steady Redis round trip is not counted as lateness (issue 30): decisions may be as
     * old as maxDecisionAgeMs plus the fastest recent round trip (at most this), and the command
     * timeout grows by twice their upper tenth (at most twice this). A path slower than this costs
     * decisions refused as late; 0 restores the fixed figures.
     */
    redisLatencyAllowanceMs: z.number().int().nonnegative().default(50),
    /** Names this instance's egress address for per-IP buckets; instances behind one NAT share one name. */
    egressId: z.string().regex(/^[A-Za-z0-9._-]+$/).default('shared'),
    /** Waiting requests held per queue before new ones are refused outright. */
    maxQueued: z.number().int().positive().default(10_000),
    /** Longest wait a client may ask for with `Prefer: wait=<seconds>` (RFC 7240) before a 429. */
    maxPreferWaitSeconds: z.number().min(0).max(120).default(10),
  })
  .strict()
  .transform(({ buckets: overrides, ...limits }) => {
    const documented = documentedLimits(limits.exchangeTier);
    const buckets = {} as Record<BucketName, ResolvedBucketLimit>;
    for (const name of BUCKET_NAMES) {
      const o = overrides[name] ?? {};
      const base = documented[name];
      const limit = o.limit ?? base.limit;
      const safetyMargin = o.safetyMargin ?? base.safetyMargin ?? limits.safetyMargin;
      buckets[name] = {
        limit,
        windowSeconds: o.windowSeconds ?? base.windowSeconds,
        safetyMargin,
        // With no margin (safetyMargin 1) there is no headroom for a window-safe burst: the whole margined limit is the burst.
        burst: o.burst ?? base.burst ?? Math.max(1, Math.floor(base.window && safetyMargin < 1 ? (limit * (1 - safetyMargin)) / 2 + 1e-9 : limit * safetyMargin)),
        // Both buckets every retail call spends keep the priority reserve for order entry and cancels.
        reserve: o.reserve ?? (name === 'retail.all' || name === 'retail.key' ? limits.priorityReserve : 0),
        paceMs: o.paceMs ?? base.paceMs ?? 0,
        scope: o.scope ?? base.scope,
      };
    }
    return { ...limits, buckets };
  });

/** A share key is a bucket name, a dotted prefix of one (`retail`, `retail.orders`) or `*` for every bucket. */
const SHARE_KEYS: ReadonlySet<string> = new Set([
  '*',
  ...BUCKET_NAMES.flatMap((name) => name.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))),
]);

/** A team's ceiling on each upstream bucket, as a fraction of it; shares may sum past 1 (the bucket stays the cap). */
export const TeamSharesSchema = z.record(z.string(), fraction).superRefine((shares, ctx) => {
  for (const key of Object.keys(shares)) {
    if (!SHARE_KEYS.has(key)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is not a bucket, a bucket prefix or *` });
  }
});

export type LimitsConfig = z.infer<typeof LimitsSchema>;
