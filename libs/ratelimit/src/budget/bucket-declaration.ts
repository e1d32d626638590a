import type { BucketOverride, LimitsConfig } from '../config/limits.config.js';

import type { BucketName, BucketScope } from './limits.types.js';

/**
 * One upstream bucket as the surface that spends it publishes it: data, declared next to the calls
 * that spend it (the way envoyproxy/ratelimit keeps descriptors as config), handed to the limiter by
 * `BucketRegistry.declare`. The limiter knows the mechanism only; config may override every number.
 */
export interface BucketDeclaration {
  readonly name: BucketName;
  /** What the upstream counts the bucket per. */
  readonly scope: BucketScope;
  /** The published figure, per window, before the safety margin. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Where the figure is published: the spec or upstream-facts line. */
  readonly source: string;
  /**
   * Published as "N requests per window" rather than as a token bucket. A bucket may admit its burst
   * plus a window's refill within one window, so its default burst is half of limit × (1 − safetyMargin):
   * burst + refill stays below the limit in every sliding window, and the other half is slack for
   * jitter between admission here and arrival upstream.
   */
  readonly window?: boolean;
  /** Defaults of a bucket whose published figure does not fit the general rule. */
  readonly safetyMargin?: number;
  readonly burst?: number;
  /** The longest a request refused by this bucket alone is held for it (paced) before a 429; default 0. */
  readonly paceMs?: number;
  /** Keeps `limits.priorityReserve` of its capacity for order entry and cancels (reads never see it). */
  readonly keepsPriorityReserve?: boolean;
  /** Has a priority lane (take-plan.ts PRIORITY_LANE) that ordinary cancels leave to the kill switch's. */
  readonly priorityLane?: boolean;
}

/** A declared bucket with config's overrides applied: the numbers the limiter enforces. */
export interface ResolvedBucketLimit {
  limit: number;
  windowSeconds: number;
  safetyMargin: number;
  /** The bucket's capacity: configured, or the default for its kind (see BucketDeclaration.window). */
  burst: number;
  reserve: number;
  scope: BucketScope;
  paceMs: number;
}

/** Applies `limits.buckets.<name>` and the section's defaults to one declaration. */
export function resolveBucket(declared: BucketDeclaration, limits: LimitsConfig): ResolvedBucketLimit {
  const o: BucketOverride = limits.buckets[declared.name] ?? {};
  const limit = o.limit ?? declared.limit;
  const safetyMargin = o.safetyMargin ?? declared.safetyMargin ?? limits.safetyMargin;
  return {
    limit,
    windowSeconds: o.windowSeconds ?? declared.windowSeconds,
    safetyMargin,
    // With no margin (safetyMargin 1) there is no headroom for a window-safe burst: the whole margined limit is the burst.
    burst:
      o.burst ??
      declared.burst ??
      Math.max(
        1,
        Math.floor(
          declared.window && safetyMargin < 1 ? (limit * (1 - safetyMargin)) / 2 + 1e-9 : limit * safetyMargin,
        ),
      ),
    reserve: o.reserve ?? (declared.keepsPriorityReserve ? limits.priorityReserve : 0),
    paceMs: o.paceMs ?? declared.paceMs ?? 0,
    scope: o.scope ?? declared.scope,
  };
}
