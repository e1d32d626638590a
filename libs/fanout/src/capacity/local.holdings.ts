import type { HeldTopic } from './stream-capacity.types.js';

/**
 * What this instance holds, per pool: the topics it keeps open upstream (and who they are charged
 * to) and, per client, how many of its subscriptions hold each topic. Counted per subscription, so a
 * client's topic is let go only when its last connection leaves it. Each client's team is kept, so the
 * teams that hold a topic here are known (a topic's charge follows its holders: see `recharge`).
 */
export class LocalHoldings {
  private readonly topics = new Map<string, Map<string, HeldTopic>>();
  private readonly clients = new Map<string, Map<string, Map<string, number>>>();
  /** Per pool: each client's team (a client's team never changes while it is connected). */
  private readonly teams = new Map<string, Map<string, string>>();

  topicsOf(pool: string): ReadonlyMap<string, HeldTopic> {
    return this.topics.get(pool) ?? new Map();
  }

  clientTopics(pool: string, client: string): ReadonlySet<string> {
    return new Set(this.clients.get(pool)?.get(client)?.keys());
  }

  /** Every client of the pool with the topics it holds here. */
  clientsOf(pool: string): [string, string[]][] {
    return [...(this.clients.get(pool) ?? new Map<string, Map<string, number>>())].map(([client, topics]) => [
      client,
      [...topics.keys()],
    ]);
  }

  holds(pool: string, topic: string, client: string): boolean {
    return this.topicsOf(pool).has(topic) && (this.clients.get(pool)?.get(client)?.has(topic) ?? false);
  }

  add(pool: string, topic: string, held: HeldTopic, client: string): void {
    const topics = mapIn(this.topics, pool);
    if (!topics.has(topic)) topics.set(topic, held);
    const refs = mapIn(mapIn(this.clients, pool), client);
    refs.set(topic, (refs.get(topic) ?? 0) + 1);
    mapIn(this.teams, pool).set(client, held.team);
  }

  /** The client's team, as its claims named it. */
  teamOf(pool: string, client: string): string | undefined {
    return this.teams.get(pool)?.get(client);
  }

  /** The teams whose clients hold the topic here, in name order. */
  teamsHolding(pool: string, topic: string): string[] {
    const teams = new Set<string>();
    for (const [client, refs] of this.clients.get(pool) ?? []) {
      const team = this.teamOf(pool, client);
      if (team !== undefined && refs.has(topic)) teams.add(team);
    }
    return [...teams].sort();
  }

  /** Every (team, topic) some client of the team holds here. */
  interestsOf(pool: string): [string, string][] {
    const pairs = new Map<string, [string, string]>();
    for (const [client, refs] of this.clients.get(pool) ?? []) {
      const team = this.teamOf(pool, client);
      if (team === undefined) continue;
      for (const topic of refs.keys()) pairs.set(`${team}\n${topic}`, [team, topic]);
    }
    return [...pairs.values()];
  }

  /**
   * A topic stays charged to the team that opened it only while a client of that team holds it: once
   * the last one left, the charge moves to a team still holding it (the first by name), so no team keeps
   * another's share taken by watching what the other opened. Nobody holding it (the linger): unchanged.
   */
  recharge(pool: string, topic: string): void {
    const held = this.topics.get(pool)?.get(topic);
    const holders = this.teamsHolding(pool, topic);
    if (held && holders.length > 0 && !holders.includes(held.team))
      this.topics.get(pool)?.set(topic, { ...held, team: holders[0] });
  }

  /** `true` when it was the client's last subscription to the topic here. */
  leave(pool: string, topic: string, client: string): boolean {
    const clients = this.clients.get(pool);
    const refs = clients?.get(client);
    const count = refs?.get(topic);
    if (!clients || !refs || count === undefined) return false;
    if (count > 1) {
      refs.set(topic, count - 1);
      return false;
    }
    refs.delete(topic);
    if (refs.size === 0) clients.delete(client);
    return true;
  }

  /** `true` when this instance held the topic. */
  release(pool: string, topic: string): boolean {
    return this.topics.get(pool)?.delete(topic) ?? false;
  }
}

function mapIn<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let inner = outer.get(key);
  if (!inner) outer.set(key, (inner = new Map()));
  return inner;
}
