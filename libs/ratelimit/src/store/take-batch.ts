import type { PlanCell, TakePlan } from '../budget/take-plan.js';
import type { BudgetKeys } from './budget-keys.js';
import { CLASS_LETTER } from './budget-keys.js';
import type { StoreOutcome } from './store-outcome.js';

/**
 * Redis no longer holds the budget's generation (restarted empty, flushed, evicted): the call took
 * nothing, and nothing may be taken there until the instance has adopted the new generation.
 */
export class BudgetLostError extends Error {
  constructor() {
    super('Redis lost the shared budget (restarted empty or flushed)');
    this.name = 'BudgetLostError';
  }
}

/** One request waiting for its batch. */
export interface PendingTake {
  plan: TakePlan;
  cost: number;
  resolve(outcome: StoreOutcome): void;
  reject(error: unknown): void;
}

/** Script arguments of a plan, built once: key names and per-cell parameters. */
export interface PreparedPlan {
  tatKeys: string[];
  coolKeys: string[];
  cellArgs: string[];
  classLetter: string;
}

/**
 * `share`: the part of each bucket the fresh instances may spend (RedisBudgetStore.reserveStale): the
 * refill slows to share × rate and the capacity shrinks to share × capacity, so the usable span in ms
 * (tokens × interval) stays what it was.
 */
export function preparePlan(plan: TakePlan, keys: BudgetKeys, share = 1): PreparedPlan {
  return {
    tatKeys: plan.cells.map((c) => keys.tat(c.key)),
    coolKeys: plan.cells.slice(0, plan.upstreamCount).map((c) => keys.coolDown(c.bucketKey)),
    cellArgs: plan.cells.flatMap((c) => [String(c.emissionMs / share), String(c.usable * c.emissionMs)]),
    classLetter: CLASS_LETTER[plan.klass],
  };
}

/** KEYS and ARGV of one TAKE_SCRIPT call (layout in gcra.lua.ts), and the reading of its reply. */
export class TakeBatch {
  readonly keys: string[] = [];
  private readonly planArgs: (string | number)[] = [];
  private readonly requestArgs: number[] = [];
  private readonly keyIndex = new Map<string, number>();
  private readonly planIndex = new Map<TakePlan, number>();
  private readonly entries: PendingTake[] = [];

  add(entry: PendingTake, prepared: PreparedPlan): void {
    this.entries.push(entry);
    let plan = this.planIndex.get(entry.plan);
    if (plan === undefined) {
      this.planArgs.push(prepared.classLetter, prepared.tatKeys.length, prepared.coolKeys.length);
      prepared.tatKeys.forEach((key, i) =>
        this.planArgs.push(this.indexOf(key), prepared.cellArgs[2 * i], prepared.cellArgs[2 * i + 1]),
      );
      for (const key of prepared.coolKeys) this.planArgs.push(this.indexOf(key));
      this.planIndex.set(entry.plan, (plan = this.planIndex.size + 1));
    }
    this.requestArgs.push(plan, entry.cost);
  }

  /** The EVALSHA key count and arguments: keys, the generation key last, then ARGV, the generation held last. */
  keysAndArgs(generationKey: string, generation: string): [number, (string | number)[]] {
    return [
      this.keys.length + 1,
      [...this.keys, generationKey, this.planIndex.size, ...this.planArgs, ...this.requestArgs, generation],
    ];
  }

  settle(reply: number[]): void {
    if (reply[0] === -1) return this.fail(new BudgetLostError());
    let at = 0;
    for (const entry of this.entries) {
      const cells = entry.plan.cells;
      const debts = reply.slice(at + 4, at + 4 + cells.length).map((us) => us / 1000);
      entry.resolve({
        allowed: reply[at] === 1,
        waitMs: reply[at + 1],
        limiting: reply[at + 2] - 1,
        coolDown: reply[at + 3] === 2,
        remaining: debts.map((debtMs, i) => tokensLeft(cells[i], debtMs)),
        resetMs: debts.map((debtMs) => Math.ceil(debtMs)),
      });
      at += 4 + cells.length;
    }
  }

  fail(error: unknown): void {
    for (const entry of this.entries) entry.reject(error);
  }

  private indexOf(key: string): number {
    let index = this.keyIndex.get(key);
    if (index === undefined) {
      this.keys.push(key);
      index = this.keys.length; // Lua tables count from 1
      this.keyIndex.set(key, index);
    }
    return index;
  }
}

/** Whole tokens in a cell whose TAT lies `debtMs` ahead of now. */
function tokensLeft(cell: PlanCell, debtMs: number): number {
  return Math.max(0, Math.floor(cell.capacity - debtMs / cell.emissionMs + 1e-6));
}
