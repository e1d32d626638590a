import { type BucketDeclaration, resolveBucket } from './bucket-declaration.js';
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
  /** Has a priority lane for the kill switch's cancels (BucketDeclaration.priorityLane). */
  priorityLane: boolean;
  /** Where the published figure comes from (BucketDeclaration.source). */
  source: string;
}

/**
 * The storage key of one bucket for one request: per-key buckets count each retail API key apart (the
 * upstream counts them per key), so two accounts never share, nor cool, one another's allowance. A
 * per-key bucket taken without an account falls back to the bucket's deployment-wide cell.
 */
export function scopedKey(spec: BucketSpec, account: string | undefined): string {
  return spec.scope === 'key' && account !== undefined ? `${spec.key}@key:${account}` : spec.key;
}

/**
 * The buckets the surfaces declared, resolved against config (`limits.buckets` overrides, margin,
 * reserve), and each team's share of them. The limiter knows no bucket of its own: each surface lib
 * declares the buckets it spends (`declare`), at start, the way topic families are added to the fanout.
 */
export class BucketRegistry {
  private readonly specs = new Map<BucketName, BucketSpec>();
  private readonly shares = new Map<string, Readonly<Record<string, number>>>();

  constructor(
    private readonly limits: LimitsConfig,
    teams: readonly TeamConfig[],
    declarations: readonly BucketDeclaration[] = [],
  ) {
    for (const team of teams) if (team.shares) this.shares.set(team.id, team.shares);
    this.declare(...declarations);
  }

  /** Adds buckets; declaring one name twice with different figures is a programming error. */
  declare(...declarations: readonly BucketDeclaration[]): void {
    for (const declared of declarations) {
      const spec = this.specOf(declared);
      const known = this.specs.get(declared.name);
      if (known && JSON.stringify(known) !== JSON.stringify(spec))
        throw new RangeError(`Rate-limit bucket "${declared.name}" is declared twice, differently`);
      this.specs.set(declared.name, spec);
    }
  }

  has(name: BucketName): boolean {
    return this.specs.has(name);
  }

  private specOf(declared: BucketDeclaration): BucketSpec {
    const b = resolveBucket(declared, this.limits);
    const margined = b.limit * b.safetyMargin;
    return {
      name: declared.name,
      published: b.limit,
      windowSeconds: b.windowSeconds,
      capacity: b.burst,
      emissionMs: (b.windowSeconds * 1000) / margined,
      reserve: b.reserve,
      scope: b.scope,
      paceMs: b.paceMs,
      key: b.scope === 'ip' ? `${declared.name}@${this.limits.egressId}` : declared.name,
      ...(b.scope === 'ip' ? { scopeKey: this.limits.egressId } : {}),
      priorityLane: declared.priorityLane ?? false,
      source: declared.source,
    };
  }

  get(name: BucketName): BucketSpec {
    const spec = this.specs.get(name);
    if (!spec)
      throw new RangeError(
        `Unknown rate-limit bucket "${name}": the surface lib that spends it declares it (BucketRegistry.declare)`,
      );
    return spec;
  }

  all(): BucketSpec[] {
    return [...this.specs.values()];
  }

  /** The sum of the other teams' shares of a bucket (see shareOf): what a team's borrowing cancel leaves them. */
  othersShare(team: string | undefined, bucket: BucketName): number {
    let sum = 0;
    for (const other of this.shares.keys()) if (other !== team) sum += this.shareOf(other, bucket) ?? 0;
    return Math.min(1, sum);
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
