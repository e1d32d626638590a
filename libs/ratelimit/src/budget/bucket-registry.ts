import type { BucketName, BucketScope, LimitsConfig, TeamConfig } from './limits.types.js';

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
  /** What the upstream counts this bucket per (limits.buckets.<name>.scope). */
  scope: BucketScope;
  /**
   * Storage key: per-IP buckets carry the egress name, so instances behind one address share one
   * bucket; a per-key bucket's cells add the API key's account name (see scopedKey).
   */
  key: string;
  /** How long a request refused by this bucket alone is held for it before a 429 (0: not paced). */
  paceMs: number;
  /** The scope key of a per-IP bucket (its egress name); per-key buckets take theirs from the request. */
  scopeKey?: string;
}

/**
 * The storage key of one bucket for one request: per-key buckets count each retail API key apart (the
 * upstream counts them per key), so two accounts never share, nor cool, one another's allowance. A
 * per-key bucket taken without an account falls back to the bucket's deployment-wide cell.
 */
export function scopedKey(spec: BucketSpec, account: string | undefined): string {
  return spec.scope === 'key' && account !== undefined ? `${spec.key}@key:${account}` : spec.key;
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
        scope: b.scope,
        paceMs: b.paceMs,
        key: b.scope === 'ip' ? `${name}@${limits.egressId}` : name,
        ...(b.scope === 'ip' ? { scopeKey: limits.egressId } : {}),
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
