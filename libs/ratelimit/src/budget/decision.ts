import type { JsonReply } from '@lib/core';

import type { StoreOutcome } from '../store/store-outcome.js';
import type { BucketName } from './limits.types.js';
import type { TakePlan } from './take-plan.js';

/** Why a request was refused. */
export type LimitedBy = 'bucket' | 'team-share' | 'cool-down' | 'unavailable';

/** Where the decision was made: the shared budget, or this instance's part of it. */
export type BudgetMode = 'redis' | 'local';

/** One cell of a decision, as the RateLimit headers report it. */
export interface BucketReading {
  bucket: BucketName;
  /** Set when the reading is the team's share of the bucket. */
  team?: string;
  /** The account (per-key bucket) or egress name (per-IP bucket) the reading counts for. */
  scopeKey?: string;
  remaining: number;
  limit: number;
  windowSeconds: number;
  /** Milliseconds until the cell is full again. */
  resetMs: number;
}

export interface Decision {
  allowed: boolean;
  /** 0 when allowed; otherwise how long until the same request would pass. */
  retryAfterMs: number;
  /** The limiting bucket when refused; when allowed, the one closest to empty. */
  bucket: BucketName;
  /** Set when that bucket's reading is the team's share. */
  team?: string;
  /** The scope key of that bucket's reading (see BucketReading). */
  scopeKey?: string;
  remaining: number;
  limit: number;
  windowSeconds: number;
  limitedBy?: LimitedBy;
  mode: BudgetMode;
  readings: BucketReading[];
  /** The `Prefer: wait` (ms) the decision was allowed to wait for, echoed as `Preference-Applied`. */
  preferWaitMs?: number;
  /** Allowed past the team's share (a cancel, TakeRequest.borrows): its tokens came from the bucket alone. */
  borrowed?: boolean;
  /** `performance.now()` when an allowed decision was asked for: its age is checked again right before the send (RateLimiter.lateAtSend). */
  askedAt?: number;
}

/** An upstream answer with the budget decision that let it be sent (for the RateLimit response headers). */
export interface BudgetedReply extends JsonReply {
  decision?: Decision;
}

/**
 * `instances`: local decisions report this instance's part of each limit. `askedAt` is set in the
 * literal (one shape for every decision, no copy per decision to add it).
 */
export function decisionOf(
  plan: TakePlan,
  outcome: StoreOutcome,
  mode: BudgetMode,
  askedAt: number,
  instances = 1,
): Decision {
  // The optional fields are assigned, not spread into the literal: V8 defines each property after a spread
  // in a runtime call (Runtime_DefineKeyedOwnPropertyInLiteral), ≈0.25 µs per reading, per decision.
  const readings: BucketReading[] = plan.cells.map((cell, i) => {
    const reading: BucketReading = {
      bucket: cell.bucket.name,
      remaining: outcome.remaining[i],
      limit: Math.floor(Math.max(1, cell.capacity / instances)),
      windowSeconds: cell.bucket.windowSeconds,
      resetMs: Math.max(0, outcome.resetMs[i]),
    };
    if (cell.team !== undefined) reading.team = cell.team;
    if (cell.scopeKey !== undefined) reading.scopeKey = cell.scopeKey;
    return reading;
  });
  const index = outcome.allowed ? tightest(readings) : outcome.limiting;
  const reading = readings[index] ?? readings[0];
  const decision: Decision = {
    allowed: outcome.allowed,
    retryAfterMs: outcome.allowed ? 0 : Math.max(1, outcome.waitMs),
    bucket: reading.bucket,
    remaining: reading.remaining,
    limit: reading.limit,
    windowSeconds: reading.windowSeconds,
    mode,
    readings,
    askedAt,
  };
  if (reading.team !== undefined) decision.team = reading.team;
  if (reading.scopeKey !== undefined) decision.scopeKey = reading.scopeKey;
  if (!outcome.allowed)
    decision.limitedBy = outcome.coolDown ? 'cool-down' : index >= plan.upstreamCount ? 'team-share' : 'bucket';
  return decision;
}

/** Refusal without consulting any bucket: Redis is unreachable and this class fails closed. */
export function unavailableDecision(plan: TakePlan, retryAfterMs: number, mode: BudgetMode): Decision {
  const cell = plan.cells[0];
  return {
    allowed: false,
    retryAfterMs,
    bucket: cell.bucket.name,
    remaining: 0,
    limit: Math.floor(cell.capacity),
    windowSeconds: cell.bucket.windowSeconds,
    limitedBy: 'unavailable',
    mode,
    readings: [],
  };
}

function tightest(readings: readonly BucketReading[]): number {
  let best = 0;
  readings.forEach((r, i) => {
    if (r.remaining / r.limit < readings[best].remaining / readings[best].limit) best = i;
  });
  return best;
}
