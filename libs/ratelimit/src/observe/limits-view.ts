import type { BucketRegistry } from '../budget/bucket-registry.js';
import type { BucketName, BucketScope } from '../budget/limits.types.js';
import { buildPlan, type PlanCell } from '../budget/take-plan.js';
import type { CellState } from '../store/store-outcome.js';
import type { UsageByBucket, UsageCount } from './team-usage.js';

export interface TeamBucketView {
  team: string;
  /** The team's share of the bucket, when it has one. */
  share?: number;
  capacity?: number;
  level?: number;
  lastMinute: UsageCount;
}

export interface BucketView {
  bucket: BucketName;
  /** What the upstream counts the bucket per; one view per scope key (each retail account of a per-key bucket). */
  scope: BucketScope;
  /** The retail account of a per-key bucket, the egress name of a per-IP one. */
  scopeKey?: string;
  /** The configured (default: published) limit per window, before the safety margin. */
  published: number;
  windowSeconds: number;
  capacity: number;
  /** Tokens available now (this instance's part of them in local mode). */
  level: number;
  refillPerSecond: number;
  /** Fraction of the capacity reads may not take. */
  reserve: number;
  coolDownMs: number;
  teams: TeamBucketView[];
}

export type LimitsMode = 'redis' | 'local' | 'single-instance';

/** One gateway instance sharing the budget, by its heartbeat. */
export interface InstanceView {
  id: string;
  /** `redis`: deciding from the shared budget; `local`: deciding from its local share, or cut off. */
  mode: 'redis' | 'local';
  heardMsAgo: number;
}

/** What `GET /admin/limits` shows. */
export interface LimitsView {
  mode: LimitsMode;
  degraded: boolean;
  instances: number;
  /** Each instance's Redis mode, as the shared heartbeats tell it (only when this instance reads Redis). */
  members?: InstanceView[];
  buckets: BucketView[];
}

/**
 * Every upstream cell, then every team-share cell, in one list to read at once: per-key buckets once
 * per retail account (the deployment-wide cell when there is none), the others once.
 */
export function viewCells(registry: BucketRegistry, accounts: readonly string[] = []): PlanCell[] {
  const specs = registry.all();
  const perKey = specs.filter((s) => s.scope === 'key').map((s) => s.name);
  const shapes: { buckets: BucketName[]; account?: string }[] = [
    { buckets: specs.filter((s) => s.scope !== 'key' || accounts.length === 0).map((s) => s.name) },
    ...(perKey.length === 0 ? [] : accounts.map((account) => ({ buckets: perKey, account }))),
  ].filter((shape) => shape.buckets.length > 0);
  const plans = (team?: string) =>
    shapes.map((shape) => buildPlan(registry, { ...shape, class: 'write', ...(team === undefined ? {} : { team }) }));
  const upstream = plans().flatMap((plan) => plan.cells);
  const shares = registry
    .teamsWithShares()
    .flatMap((team) => plans(team).flatMap((plan) => plan.cells.slice(plan.upstreamCount)));
  return [...upstream, ...shares];
}

export function assembleView(
  registry: BucketRegistry,
  cells: readonly PlanCell[],
  states: readonly CellState[],
  usage: UsageByBucket,
  status: Omit<LimitsView, 'buckets'>,
): LimitsView {
  // Keyed by the bucket's storage key: one view per bucket and scope key.
  const views = new Map<string, BucketView>();
  cells.forEach((cell, i) => {
    const level = round(states[i].level);
    if (cell.team !== undefined) {
      views.get(cell.bucketKey)?.teams.push({
        team: cell.team,
        share: registry.shareOf(cell.team, cell.bucket.name),
        capacity: cell.capacity,
        level,
        lastMinute: { allowed: 0, denied: 0 },
      });
      return;
    }
    views.set(cell.bucketKey, {
      bucket: cell.bucket.name,
      scope: cell.bucket.scope,
      ...(cell.scopeKey === undefined ? {} : { scopeKey: cell.scopeKey }),
      published: cell.bucket.published,
      windowSeconds: cell.bucket.windowSeconds,
      capacity: cell.capacity,
      level,
      refillPerSecond: round(1000 / cell.emissionMs),
      reserve: cell.bucket.reserve,
      coolDownMs: Math.round(states[i].coolDownMs),
      teams: [],
    });
  });
  for (const [bucketKey, byTeam] of Object.entries(usage)) {
    const view = views.get(bucketKey);
    if (!view) continue;
    for (const [team, count] of Object.entries(byTeam)) {
      const existing = view.teams.find((t) => t.team === team);
      if (existing) existing.lastMinute = count;
      else view.teams.push({ team, lastMinute: count });
    }
  }
  return { ...status, buckets: [...views.values()] };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
