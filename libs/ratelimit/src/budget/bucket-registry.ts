import type { BucketName, LimitsConfig, TeamConfig } from './limits.types.js';

/** One upstream bucket as the limiter enforces it: the published figure times the safety margin. */
export interface BucketSpec {
  name: BucketName;
  /** The figure configured (default: published) before the margin, per window. */
  published: number;
  windowSeconds: number;
  /** Requests a full bucket allows at once; also the `limit` reported to clients. */
  capacity: number;
  /** Milliseconds per token: the margined limit spread evenly over the window. */
  emissionMs: number;
  /** Fraction of the capacity reads may not take (priority reserve). */
  reserve: number;
  /** Storage key: per-IP buckets carry the egress name, so instances behind one address share one bucket. */
  key: string;
}

/** Bucket specs resolved from config, and each team's share of them. */
export class BucketRegistry {
  private readonly specs = new Map<BucketName, BucketSpec>();
  private readonly shares = new Map<string, Readonly<Record<string, number>>>();

  constructor(limits: LimitsConfig, teams: readonly TeamConfig[]) {
    for (const [name, b] of Object.entries(limits.buckets) as [BucketName, LimitsConfig['buckets'][BucketName]][]) {
      const margined = b.limit * b.safetyMargin;
      this.specs.set(name, {
        name,
        published: b.limit,
        windowSeconds: b.windowSeconds,
        capacity: b.burst,
        emissionMs: (b.windowSeconds * 1000) / margined,
        reserve: b.reserve,
        key: b.perEgressIp ? `${name}@${limits.egressId}` : name,
      });
    }
    for (const team of teams) if (team.shares) this.shares.set(team.id, team.shares);
  }

  get(name: BucketName): BucketSpec {
    const spec = this.specs.get(name);
    if (!spec) throw new RangeError(`Unknown rate-limit bucket "${name}"`);
    return spec;
  }

  all(): BucketSpec[] {
    return [...this.specs.values()];
  }

  teamsWithShares(): string[] {
    return [...this.shares.keys()];
  }

  /** The team's share of a bucket: exact name first, then the longest dotted prefix, then `*`. */
  shareOf(team: string | undefined, bucket: BucketName): number | undefined {
    const shares = team === undefined ? undefined : this.shares.get(team);
    if (!shares) return undefined;
    const parts = bucket.split('.');
    for (let i = parts.length; i > 0; i--) {
      const share = shares[parts.slice(0, i).join('.')];
      if (share !== undefined) return share;
    }
    return shares['*'];
  }
}
