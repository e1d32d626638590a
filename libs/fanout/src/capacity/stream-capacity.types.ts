/** Who holds a subscription: the API client and its team, as the `/ws` endpoint authenticated them. */
export interface StreamHolder {
  client: string;
  team: string;
}

/** The limits of one pool of upstream streams (the exchange firm's streams, for one). */
export interface PoolLimits {
  /** Streams the teams together may hold: the firm's limit less any reserve. */
  capacity: number;
  /** Streams each team may hold; a team not listed may hold none. */
  teamShares: Record<string, number>;
  /** Distinct topics of the pool one client may hold, over all its connections. */
  clientTopics: number;
  /** Clients with a cap of their own instead of `clientTopics`, by client id. */
  clientOverrides?: Record<string, number>;
}

/** The distinct topics of the pool this client may hold. */
export function clientTopicCap(limits: PoolLimits, client: string): number {
  return limits.clientOverrides?.[client] ?? limits.clientTopics;
}

export interface CapacitySettings {
  pools: Record<string, PoolLimits>;
  /** A holding not renewed for this long lapses (Redis only): a crashed instance's streams come back. */
  holdingTtlMs: number;
  renewEveryMs: number;
}

/** Which cap refused a claim: the client's distinct topics, its team's share, or the pool itself. */
export type StreamCap = 'client' | 'team' | 'firm';

export type ClaimOutcome = { granted: true } | { granted: false; cap: StreamCap; limit: number };

export interface PoolUsage {
  pool: string;
  capacity: number;
  /** Upstream streams held now, cluster-wide: one per topic however many clients watch it. */
  inUse: number;
  byKind: Record<string, number>;
  byTeam: Record<string, { share: number; inUse: number }>;
}

/** A topic as a pool counts it: the topic family's kind and the team it is charged to. */
export interface HeldTopic {
  kind: string;
  team: string;
}

/**
 * The one admission rule for a new holding (the Redis script mirrors it line by line). A topic already
 * held upstream costs nothing, whoever holds it; a new one is charged to the claiming team while a
 * client of that team holds it, then to a team still holding it (LocalHoldings.recharge, and the
 * ledger script's live_topics), until it closes. `live` is every topic the pool holds now, with the
 * team it is charged to; `clientTopics` the topics the client holds.
 */
export function decideClaim(
  limits: PoolLimits,
  live: ReadonlyMap<string, HeldTopic>,
  clientTopics: ReadonlySet<string>,
  topic: string,
  team: string,
  client = '',
): ClaimOutcome {
  const clientCap = clientTopicCap(limits, client);
  if (!clientTopics.has(topic) && clientTopics.size >= clientCap)
    return { granted: false, cap: 'client', limit: clientCap };
  if (live.has(topic)) return { granted: true };
  const share = limits.teamShares[team] ?? 0;
  const teamHeld = [...live.values()].filter((held) => held.team === team).length;
  if (teamHeld >= share) return { granted: false, cap: 'team', limit: share };
  if (live.size >= limits.capacity) return { granted: false, cap: 'firm', limit: limits.capacity };
  return { granted: true };
}

/** The usage view of one pool from the topics it holds. */
export function usageOf(pool: string, limits: PoolLimits, live: Iterable<HeldTopic>): PoolUsage {
  const usage: PoolUsage = { pool, capacity: limits.capacity, inUse: 0, byKind: {}, byTeam: {} };
  for (const [team, share] of Object.entries(limits.teamShares)) usage.byTeam[team] = { share, inUse: 0 };
  for (const { kind, team } of live) {
    usage.inUse += 1;
    usage.byKind[kind] = (usage.byKind[kind] ?? 0) + 1;
    usage.byTeam[team] ??= { share: 0, inUse: 0 };
    usage.byTeam[team].inUse += 1;
  }
  return usage;
}

/**
 * What the hub asks of a ledger; one per instance, in memory or on Redis. A pool counts holdings of
 * one scarce upstream resource, keyed by name; a name is a topic. Market-data topics hold a symbol
 * each (they share one multiplexed stream per instance, covered by the stream pool's reserve); every
 * other exchange topic family holds one of the firm's streams per topic, with its kind (orders,
 * dropCopy, trades, positions, instrumentState).
 */
export interface StreamLedger {
  /** Before a client joins a pooled topic: grants (and records) the holding or names the cap that refuses it. */
  claim(pool: string, kind: string, topic: string, holder: StreamHolder): Promise<ClaimOutcome>;
  /** One granted claim of the client ended (unsubscribed, refused later, or disconnected). */
  leave(pool: string, topic: string, client: string): void;
  /** This instance no longer holds the topic upstream (the linger ended). */
  release(pool: string, topic: string): void;
  usage(): Promise<PoolUsage[]>;
  close(): Promise<void>;
}
