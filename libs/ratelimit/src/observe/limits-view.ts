import type { BucketRegistry } from '../budget/bucket-registry.js';
import type { BucketName } from '../budget/limits.types.js';
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

/** What `GET /admin/limits` shows. */
export interface LimitsView {
  mode: LimitsMode;
  degraded: boolean;
  instances: number;
  buckets: BucketView[];
}

/** Every upstream cell, then every team-share cell, in one list to read at once. */
export function viewCells(registry: BucketRegistry): PlanCell[] {
  const buckets = registry.all().map((s) => s.name);
  const upstream = buildPlan(registry, { buckets, class: 'write' }).cells;
  const shares = registry.teamsWithShares().flatMap((team) => {
    const plan = buildPlan(registry, { buckets, team, class: 'write' });
    return plan.cells.slice(plan.upstreamCount);
  });
  return [...upstream, ...shares];
}

export function assembleView(
  registry: BucketRegistry,
  cells: readonly PlanCell[],
  states: readonly CellState[],
  usage: UsageByBucket,
  status: Omit<LimitsView, 'buckets'>,
): LimitsView {
  const views = new Map<BucketName, BucketView>();
  cells.forEach((cell, i) => {
    const level = round(states[i].level);
    if (cell.team !== undefined) {
      views.get(cell.bucket.name)?.teams.push({ team: cell.team, share: registry.shareOf(cell.team, cell.bucket.name), capacity: cell.capacity, level, lastMinute: { allowed: 0, denied: 0 } });
      return;
    }
    views.set(cell.bucket.name, {
      bucket: cell.bucket.name,
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
  for (const [bucket, byTeam] of Object.entries(usage)) {
    const view = views.get(bucket as BucketName);
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
