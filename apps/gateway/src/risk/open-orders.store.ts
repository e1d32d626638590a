import type { RedisClient } from '@lib/core';

/** One count an order falls under: its key (scope and market pattern) and the most it may hold. */
export interface OpenOrderCount {
  key: string;
  max: number;
  scope: string;
}

/** An order the gateway counted, once the exchange named it. */
export interface BoundOrder {
  token: string;
  keys: string[];
  participant: string;
}

/** A reservation refused: the count that was full and what it held. */
export interface Refusal {
  count: OpenOrderCount;
  held: number;
}

/**
 * The open-order counts shared by every instance: a reservation takes one slot in each count the order
 * falls under, all or none, atomically (one Lua script in Redis; one synchronous step in memory).
 */
export interface OpenOrderStore {
  reserve(counts: readonly OpenOrderCount[], token: string): Promise<Refusal | undefined>;
  /** The slot of a reservation the exchange answered with an order id, remembered until the order closes. */
  bind(orderId: string, order: BoundOrder): Promise<void>;
  /** Gives back a reservation that opened nothing. */
  release(token: string, keys: readonly string[]): Promise<void>;
  /** Gives back the slot of a bound order that is closed (cancelled, filled, expired, rejected). */
  releaseOrder(orderId: string): Promise<void>;
  bound(): Promise<Map<string, BoundOrder>>;
  /** How many slots each count holds now (the ops console reads it). */
  held(keys: readonly string[]): Promise<number[]>;
  /** Drops reservations never bound nor released after `olderThanMs` (an instance died between reserve and answer). */
  sweep(keys: readonly string[], olderThanMs: number): Promise<void>;
}

export class MemoryOpenOrderStore implements OpenOrderStore {
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly orders = new Map<string, BoundOrder>();

  async reserve(counts: readonly OpenOrderCount[], token: string): Promise<Refusal | undefined> {
    for (const count of counts) {
      const held = this.counts.get(count.key)?.size ?? 0;
      if (held + 1 > count.max) return { count, held };
    }
    for (const count of counts) {
      if (!this.counts.has(count.key)) this.counts.set(count.key, new Map());
      this.counts.get(count.key)!.set(token, Date.now());
    }
    return undefined;
  }

  async bind(orderId: string, order: BoundOrder): Promise<void> {
    this.orders.set(orderId, order);
  }

  async release(token: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) this.counts.get(key)?.delete(token);
  }

  async releaseOrder(orderId: string): Promise<void> {
    const order = this.orders.get(orderId);
    if (!order) return;
    this.orders.delete(orderId);
    await this.release(order.token, order.keys);
  }

  async bound(): Promise<Map<string, BoundOrder>> {
    return new Map(this.orders);
  }

  async held(keys: readonly string[]): Promise<number[]> {
    return keys.map((key) => this.counts.get(key)?.size ?? 0);
  }

  async sweep(keys: readonly string[], olderThanMs: number): Promise<void> {
    const boundTokens = new Set([...this.orders.values()].map((order) => order.token));
    for (const key of keys) {
      for (const [token, at] of this.counts.get(key) ?? []) if (Date.now() - at > olderThanMs && !boundTokens.has(token)) this.counts.get(key)!.delete(token);
    }
  }
}

/** KEYS: the counts' sorted sets. ARGV: the token, then each count's max. Returns 0, or the 1-based index of the full count and what it held. */
const RESERVE = `
local token = ARGV[1]
for i = 1, #KEYS do
  local held = redis.call('ZCARD', KEYS[i])
  if held + 1 > tonumber(ARGV[i + 1]) then return {i, held} end
end
local now = redis.call('TIME')
local ms = now[1] * 1000 + math.floor(now[2] / 1000)
for i = 1, #KEYS do redis.call('ZADD', KEYS[i], ms, token) end
return {0, 0}
`;

/** KEYS[1]: the bound orders (hash), KEYS[2]: the bound tokens (set). ARGV[1]: the order id, ARGV[2]: the key prefix of the counts. */
const RELEASE_ORDER = `
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
local order = cjson.decode(text)
for _, key in ipairs(order.keys) do redis.call('ZREM', ARGV[2] .. key, order.token) end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], order.token)
return 1
`;

/** KEYS: the counts. ARGV[1]: the bound-tokens set, ARGV[2]: the age in ms past which an unbound reservation is dropped. */
const SWEEP = `
local now = redis.call('TIME')
local limit = now[1] * 1000 + math.floor(now[2] / 1000) - tonumber(ARGV[2])
for i = 1, #KEYS do
  for _, token in ipairs(redis.call('ZRANGEBYSCORE', KEYS[i], '-inf', limit)) do
    if redis.call('SISMEMBER', ARGV[1], token) == 0 then redis.call('ZREM', KEYS[i], token) end
  end
end
return 0
`;

export class RedisOpenOrderStore implements OpenOrderStore {
  private readonly countPrefix: string;
  private readonly ordersKey: string;
  private readonly tokensKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag for every key: a script touches several, which a cluster allows only within one slot.
    this.countPrefix = `${prefix}{risk}:open:`;
    this.ordersKey = `${prefix}{risk}:open-orders`;
    this.tokensKey = `${prefix}{risk}:open-tokens`;
  }

  async reserve(counts: readonly OpenOrderCount[], token: string): Promise<Refusal | undefined> {
    const keys = counts.map((count) => this.countPrefix + count.key);
    const [index, held] = (await this.redis.eval(RESERVE, keys.length, ...keys, token, ...counts.map((count) => count.max))) as [number, number];
    return index === 0 ? undefined : { count: counts[index - 1], held };
  }

  async bind(orderId: string, order: BoundOrder): Promise<void> {
    await this.redis.multi().hset(this.ordersKey, orderId, JSON.stringify(order)).sadd(this.tokensKey, order.token).exec();
  }

  async release(token: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const multi = this.redis.multi();
    for (const key of keys) multi.zrem(this.countPrefix + key, token);
    await multi.exec();
  }

  async releaseOrder(orderId: string): Promise<void> {
    await this.redis.eval(RELEASE_ORDER, 2, this.ordersKey, this.tokensKey, orderId, this.countPrefix);
  }

  async bound(): Promise<Map<string, BoundOrder>> {
    const all = await this.redis.hgetall(this.ordersKey);
    return new Map(Object.entries(all).map(([orderId, text]) => [orderId, JSON.parse(text) as BoundOrder]));
  }

  async held(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const multi = this.redis.multi();
    for (const key of keys) multi.zcard(this.countPrefix + key);
    return ((await multi.exec()) ?? []).map(([error, count]) => (error ? Number.NaN : Number(count)));
  }

  async sweep(keys: readonly string[], olderThanMs: number): Promise<void> {
    if (keys.length === 0) return;
    const full = keys.map((key) => this.countPrefix + key);
    await this.redis.eval(SWEEP, full.length, ...full, this.tokensKey, olderThanMs);
  }
}
