/** Requests allowed and refused over the last minute. */
export interface UsageCount {
  allowed: number;
  denied: number;
}

/** bucket → team ('' for none) → counts. Instances publish this with their heartbeat; the admin view sums them. */
export type UsageByBucket = Record<string, Record<string, UsageCount>>;

const SLOTS = 60;

/** One (bucket, team) pair: per-second slots over a rolling minute. */
export class UsageRing {
  private readonly allowed = new Float64Array(SLOTS);
  private readonly denied = new Float64Array(SLOTS);
  private readonly stamps = new Float64Array(SLOTS).fill(-1);

  record(allowed: boolean, cost: number, nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    const slot = second % SLOTS;
    if (this.stamps[slot] !== second) {
      this.stamps[slot] = second;
      this.allowed[slot] = 0;
      this.denied[slot] = 0;
    }
    if (allowed) this.allowed[slot] += cost;
    else this.denied[slot] += cost;
  }

  lastMinute(nowMs: number): UsageCount {
    const second = Math.floor(nowMs / 1000);
    const count = { allowed: 0, denied: 0 };
    for (let i = 0; i < SLOTS; i++) {
      if (this.stamps[i] <= second - SLOTS) continue;
      count.allowed += this.allowed[i];
      count.denied += this.denied[i];
    }
    return count;
  }
}

/** Per-team use of each upstream bucket on this instance. */
export class TeamUsage {
  private readonly rings = new Map<string, Map<string, UsageRing>>();

  ring(bucket: string, team: string | undefined): UsageRing {
    let byTeam = this.rings.get(bucket);
    if (!byTeam) this.rings.set(bucket, (byTeam = new Map()));
    let ring = byTeam.get(team ?? '');
    if (!ring) byTeam.set(team ?? '', (ring = new UsageRing()));
    return ring;
  }

  lastMinute(nowMs: number): UsageByBucket {
    const out: UsageByBucket = {};
    for (const [bucket, byTeam] of this.rings) {
      for (const [team, ring] of byTeam) {
        const count = ring.lastMinute(nowMs);
        if (count.allowed + count.denied > 0) (out[bucket] ??= {})[team] = count;
      }
    }
    return out;
  }
}

/** Adds usage documents of several instances together. */
export function sumUsage(docs: readonly UsageByBucket[]): UsageByBucket {
  const out: UsageByBucket = {};
  for (const doc of docs) {
    for (const [bucket, byTeam] of Object.entries(doc)) {
      for (const [team, count] of Object.entries(byTeam)) {
        const into = ((out[bucket] ??= {})[team] ??= { allowed: 0, denied: 0 });
        into.allowed += count.allowed;
        into.denied += count.denied;
      }
    }
  }
  return out;
}
