import type { PlanCell, TakePlan } from '../budget/take-plan.js';
import { type GcraCell, gcraTake } from '../gcra/gcra.js';
import { CLASS_LETTER } from './budget-keys.js';
import type { CellState, StoreOutcome } from './store-outcome.js';

interface LocalCoolDown {
  until: number;
  classes: string;
}

/**
 * In-process buckets for single-instance mode and for Redis outages. With `instances` gateways
 * alive, each takes 1/instances of every bucket, so together they stay under the upstream limit.
 */
export class LocalBudgetStore {
  private readonly tats = new Map<string, number>();
  private readonly coolDowns = new Map<string, LocalCoolDown>();
  private readonly scaled = new WeakMap<TakePlan, { instances: number; cells: GcraCell[] }>();
  /** Set while standing in for Redis: cells this store has not seen count as spent at that moment, not full. */
  private spentAt: number | undefined;

  /**
   * Redis became unreachable: what the fleet spent there is unknown, so every local cell starts
   * spent and refills from `now + holdMs` (starting full would add a burst the window limits have no
   * room for). `holdMs`: how long the other instances may still spend this one's share on Redis.
   */
  beginOutage(now: number, holdMs = 0): void {
    this.tats.clear();
    this.spentAt = now + holdMs;
  }

  private tatOf(key: string, cell: GcraCell): number | undefined {
    return (
      this.tats.get(key) ?? (this.spentAt === undefined ? undefined : this.spentAt + cell.capacity * cell.emissionMs)
    );
  }

  take(plan: TakePlan, cost: number, instances: number, now: number): StoreOutcome {
    const cells = this.cellsOf(plan, instances);
    const tats = plan.cells.map((c, i) => this.tatOf(c.key, cells[i]));
    // A batch may need more than this instance's part of a bucket: then it takes the whole part, or it could never pass.
    const outcome = gcraTake(now, tats, cells, Math.min(cost, ...cells.map((c) => c.usable)));
    const blocked = this.coolDownOf(plan, now);
    if (blocked) {
      // A cool-down refuses without spending: a zero-cost take only reads the levels.
      const levels = gcraTake(now, tats, cells, 0);
      const coolLonger = blocked.waitMs >= outcome.waitMs;
      return {
        allowed: false,
        waitMs: coolLonger ? blocked.waitMs : outcome.waitMs,
        limiting: coolLonger ? blocked.index : outcome.limiting,
        coolDown: coolLonger,
        remaining: levels.remaining,
        resetMs: levels.resetMs,
      };
    }
    if (outcome.allowed) plan.cells.forEach((c, i) => this.tats.set(c.key, outcome.tats[i]));
    return {
      allowed: outcome.allowed,
      waitMs: outcome.waitMs,
      limiting: outcome.limiting,
      coolDown: false,
      remaining: outcome.remaining,
      resetMs: outcome.resetMs,
    };
  }

  coolDown(bucketKeys: readonly string[], classLetters: string, ms: number, now: number): void {
    for (const key of bucketKeys) {
      const current = this.coolDowns.get(key);
      const live = current && current.until > now ? current : undefined;
      const classes = [...new Set(classLetters + (live?.classes ?? ''))].join('');
      this.coolDowns.set(key, { until: Math.max(now + ms, live?.until ?? 0), classes });
    }
  }

  read(cells: readonly PlanCell[], instances: number, now: number): CellState[] {
    return cells.map((cell) => {
      const local = scaleCell(cell, instances);
      const tat = Math.max(now, this.tatOf(cell.key, local) ?? now);
      const cool = this.coolDowns.get(cell.bucketKey);
      return {
        level: Math.max(0, (now + local.capacity * local.emissionMs - tat) / local.emissionMs),
        coolDownMs: cool && cool.until > now ? cool.until - now : 0,
      };
    });
  }

  private coolDownOf(plan: TakePlan, now: number): { waitMs: number; index: number } | undefined {
    const letter = CLASS_LETTER[plan.klass];
    let found: { waitMs: number; index: number } | undefined;
    for (let i = 0; i < plan.upstreamCount; i++) {
      const cool = this.coolDowns.get(plan.cells[i].bucketKey);
      if (!cool || cool.until <= now || !cool.classes.includes(letter)) continue;
      if (!found || cool.until - now > found.waitMs) found = { waitMs: Math.ceil(cool.until - now), index: i };
    }
    return found;
  }

  private cellsOf(plan: TakePlan, instances: number): GcraCell[] {
    const cached = this.scaled.get(plan);
    if (cached?.instances === instances) return cached.cells;
    const cells = plan.cells.map((c) => scaleCell(c, instances));
    this.scaled.set(plan, { instances, cells });
    return cells;
  }
}

/** This instance's part of a cell: 1/instances of the capacity, refilled 1/instances as fast. */
export function scaleCell(cell: GcraCell, instances: number): GcraCell {
  const n = Math.max(1, instances);
  const capacity = Math.max(1, cell.capacity / n);
  return { emissionMs: cell.emissionMs * n, capacity, usable: (capacity * cell.usable) / cell.capacity };
}
