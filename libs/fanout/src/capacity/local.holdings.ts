import type { HeldTopic } from './stream-capacity.types.js';

/**
 * What this instance holds, per pool: the topics it keeps open upstream (and who they are charged
 * to) and, per client, how many of its subscriptions hold each topic. Counted per subscription, so a
 * client's topic is let go only when its last connection leaves it.
 */
export class LocalHoldings {
  private readonly topics = new Map<string, Map<string, HeldTopic>>();
  private readonly clients = new Map<string, Map<string, Map<string, number>>>();

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
