import { type BucketRegistry, type BucketSpec, scopedKey } from './bucket-registry.js';
import type { BucketName, RequestClass } from './limits.types.js';

/** What one request asks of the budget. */
export interface TakeRequest {
  /** Every upstream bucket the route spends, e.g. `retail.orders.create` + `retail.all`. */
  buckets: readonly BucketName[];
  /** The calling team: its share of each bucket is its ceiling. */
  team?: string;
  /** Tokens to take from each bucket; a batch may cost more than one. */
  cost?: number;
  class: RequestClass;
  /** The retail account (API key) the request is signed with: per-key buckets count it apart. */
  account?: string;
  /** The priority lane (the kill switch's cancels): may take the slice of a cancel bucket that ordinary cancels leave. */
  priority?: boolean;
  /** An ordinary cancel while a kill-switch run sends on this instance (PriorityLane.inUse): it leaves the lane's slice. */
  yieldsLane?: boolean;
  /**
   * A cancel past its team's share (RateLimiter.take tries it once the share refused): no share cell, and
   * each bucket stops short of the other teams' shares of it, so a team's cancels are never held back by
   * its own share while the bucket has room no other team was given.
   */
  borrows?: boolean;
}

/**
 * The priority lane: the share of a lane bucket's capacity (BucketDeclaration.priorityLane: the cancel
 * bucket the kill switch spends) that ordinary cancels stop short of, so the kill switch's cancels (halt-and-cancel, cancel-on-disconnect, the dead-man's switch) find budget at once and
 * take all the refill while the bucket sits below it. The bucket's rate and capacity are the same: the
 * lane is inside the published limit, never above it.
 */
export const PRIORITY_LANE = 0.1;

/** One GCRA cell the request must pass: an upstream bucket, or a team's share of one. */
export interface PlanCell {
  bucket: BucketSpec;
  /** Set on a team-share cell. */
  team?: string;
  capacity: number;
  emissionMs: number;
  /** Tokens this request's class may use: reads stop short of the priority reserve. */
  usable: number;
  /** Storage key suffix, unique per bucket, scope key (and team). */
  key: string;
  /** The upstream bucket's storage key for this request (its scope key included): where cool-downs live. */
  bucketKey: string;
  /** The account of a per-key bucket's cell, or the egress name of a per-IP one. */
  scopeKey?: string;
}

/** A request shape resolved once and reused: upstream cells first, then team-share cells. */
export interface TakePlan {
  id: string;
  klass: RequestClass;
  team: string | undefined;
  cells: PlanCell[];
  upstreamCount: number;
  /** The largest cost every cell can ever grant. */
  maxCost: number;
}

export function planId(request: TakeRequest): string {
  return `${request.class}${request.priority ? '!' : request.yieldsLane ? '~' : ''}${request.borrows ? '+' : ''}|${request.team ?? ''}|${request.account ?? ''}|${request.buckets.join(',')}`;
}

export function buildPlan(registry: BucketRegistry, request: TakeRequest): TakePlan {
  if (request.buckets.length === 0) throw new RangeError('A rate-limit request needs at least one bucket');
  if (new Set(request.buckets).size !== request.buckets.length)
    throw new RangeError(`Duplicate bucket in ${request.buckets.join(', ')}`);
  const usableOf = (capacity: number, reserve: number, bucket: BucketSpec) => {
    if (request.class === 'read') return capacity * (1 - reserve);
    // A borrowing cancel leaves the other teams' shares of the bucket (and the lane, as below).
    const borrowed = request.borrows ? capacity * (1 - registry.othersShare(request.team, bucket.name)) : capacity;
    // Ordinary cancels leave the priority lane while a kill-switch run needs it; at least one token stays usable to them.
    if (request.class === 'cancel' && request.yieldsLane && !request.priority && bucket.priorityLane)
      return Math.min(borrowed, Math.max(1, capacity * (1 - PRIORITY_LANE)));
    return borrowed;
  };
  const specs = request.buckets.map((name) => registry.get(name));
  const scoped = (spec: BucketSpec) => {
    const bucketKey = scopedKey(spec, request.account);
    const scopeKey = spec.scope === 'key' ? request.account : spec.scopeKey;
    return { bucketKey, ...(scopeKey === undefined ? {} : { scopeKey }) };
  };
  const upstream: PlanCell[] = specs.map((spec) => ({
    bucket: spec,
    capacity: spec.capacity,
    emissionMs: spec.emissionMs,
    usable: usableOf(spec.capacity, spec.reserve, spec),
    ...scoped(spec),
    key: scopedKey(spec, request.account),
  }));
  const shares: PlanCell[] = [];
  for (const spec of specs) {
    if (request.borrows) break;
    const share = registry.shareOf(request.team, spec.name);
    if (share === undefined || request.team === undefined) continue;
    const capacity = Math.max(1, Math.floor(spec.capacity * share));
    shares.push({
      bucket: spec,
      team: request.team,
      capacity,
      emissionMs: spec.emissionMs / share,
      usable: usableOf(capacity, spec.reserve, spec),
      ...scoped(spec),
      key: `${scopedKey(spec, request.account)}:team:${request.team}`,
    });
  }
  const cells = [...upstream, ...shares];
  return {
    id: planId(request),
    klass: request.class,
    team: request.team,
    cells,
    upstreamCount: upstream.length,
    maxCost: Math.min(...cells.map((c) => c.usable)),
  };
}
