/**
 * Generic cell rate algorithm over several cells at once, all or none. Each cell keeps one number,
 * the theoretical arrival time (TAT); a full cell has TAT <= now. This is the in-process twin of
 * the Lua script in gcra.lua.ts: both must compute the same answers.
 */
export interface GcraCell {
  emissionMs: number;
  capacity: number;
  /** Tokens the caller may use (capacity, or less for reads that must leave a reserve). */
  usable: number;
}

export interface GcraOutcome {
  allowed: boolean;
  /** Milliseconds until the same take would pass (0 when allowed). */
  waitMs: number;
  /** Index of the cell that refused, -1 when allowed. */
  limiting: number;
  /** Whole tokens left in each cell after this decision. */
  remaining: number[];
  /** Milliseconds until each cell is full again. */
  resetMs: number[];
}

/** Float slack so that exactly `capacity` takes at one instant all pass. */
const EPSILON_MS = 1e-6;

export function gcraTake(
  now: number,
  tats: (number | undefined)[],
  cells: readonly GcraCell[],
  cost: number,
): GcraOutcome & { tats: number[] } {
  let waitMs = 0;
  let limiting = -1;
  const next: number[] = [];
  cells.forEach((cell, i) => {
    const tat = Math.max(tats[i] ?? now, now);
    const newTat = tat + cost * cell.emissionMs;
    const allowAt = newTat - cell.usable * cell.emissionMs;
    if (allowAt - now > EPSILON_MS && allowAt - now > waitMs) {
      waitMs = allowAt - now;
      limiting = i;
    }
    next.push(newTat);
  });
  const allowed = limiting === -1;
  const kept = allowed ? next : cells.map((_, i) => Math.max(tats[i] ?? now, now));
  return {
    allowed,
    waitMs: Math.ceil(waitMs),
    limiting,
    remaining: cells.map((cell, i) =>
      Math.max(0, Math.floor((now + cell.capacity * cell.emissionMs - kept[i]) / cell.emissionMs + EPSILON_MS)),
    ),
    resetMs: kept.map((tat) => Math.ceil(tat - now)),
    tats: kept,
  };
}
