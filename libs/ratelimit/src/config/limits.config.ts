import { z } from 'zod';

/** Request classes the budget tells apart: reads may not eat the reserve kept for order entry and cancels. */
export const REQUEST_CLASSES = ['read', 'write', 'cancel'] as const;
export type RequestClass = (typeof REQUEST_CLASSES)[number];

/**
 * What the upstream counts a bucket per: the firm, each API key the gateway holds (per-key buckets are
 * counted per account), the source IP (public endpoints), or the deployment (one bucket for this
 * gateway fleet, whatever it serves). Each bucket's declaration says which.
 */
export const BUCKET_SCOPES = ['firm', 'key', 'ip', 'deployment'] as const;
export type BucketScope = (typeof BUCKET_SCOPES)[number];

/** A bucket name: dotted lower-case words (`<surface>.<group>.<operation>`); declared by the lib that spends it. */
const BUCKET_NAME = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

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
    /** What the upstream counts the bucket per (default: as declared, see BUCKET_SCOPES). */
    scope: z.enum(BUCKET_SCOPES),
    /** Milliseconds a request refused by this bucket alone waits for it before a 429 (pacing). */
    paceMs: z.number().min(0).max(10_000),
  })
  .partial()
  .strict();

export const LimitsSchema = z
  .object({
    /** Stay under the published figures so clock drift and in-flight requests do not earn 429s. */
    safetyMargin: fraction.default(0.9),
    /** Fraction of the buckets declared `keepsPriorityReserve` kept for cancels and order entry (reads never see it). */
    priorityReserve: reserveFraction.default(0.2),
    /**
     * Overrides per bucket name. The buckets themselves are declared by the surface libs that spend
     * them (BucketDeclaration in @lib/ratelimit); the app checks these names against the declarations.
     */
    buckets: z.record(z.string().regex(BUCKET_NAME, 'expected a dotted bucket name'), BucketOverrideSchema).default({}),
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
    egressId: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/)
      .default('shared'),
    /** Waiting requests held per queue before new ones are refused outright. */
    maxQueued: z.number().int().positive().default(10_000),
    /** Longest wait a client may ask for with `Prefer: wait=<seconds>` (RFC 7240) before a 429. */
    maxPreferWaitSeconds: z.number().min(0).max(120).default(10),
  })
  .strict();

/**
 * A team's ceiling on each upstream bucket, as a fraction of it; shares may sum past 1 (the bucket stays
 * the cap). A key is a bucket name, a dotted prefix of one, or `*`; the app checks the keys against the
 * declared buckets.
 */
export const TeamSharesSchema = z.record(
  z.string().regex(/^(\*|[a-z0-9-]+(\.[a-z0-9-]+)*)$/, 'expected a bucket, a bucket prefix or *'),
  fraction,
);

export type LimitsConfig = z.infer<typeof LimitsSchema>;
export type TeamShares = z.infer<typeof TeamSharesSchema>;

/** What the limiter adds to each team's entry (`teams[]`): its ceilings on the upstream buckets. */
export const LimitsTeamFields = { shares: TeamSharesSchema.optional() };
export type BucketOverride = z.infer<typeof BucketOverrideSchema>;
