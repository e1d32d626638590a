import type { RedisClient } from '@lib/core';

import { JUDGE, LEAVES, RELEASE, RELEASE_ORDER, RESERVE, SWEEP } from './open-orders.scripts.js';

/** What a count adds up: orders (one each), open notional (micro-dollars), or a net position (contracts). */
export type CountKind = 'orders' | 'notional' | 'position';

/**
 * One count an order falls under: its key (kind, scope and market pattern) and the most it may hold, in
 * the count's unit (orders, micro-dollars, contracts). A position count carries the position it starts
 * from (signed contracts, positive long), read before the reservation.
 */
export interface OpenOrderCount {
  key: string;
  max: number;
  scope: string;
  kind?: CountKind;
  market?: string;
  event?: string;
  position?: number;
}

/** What one order adds to the exposure counts: its side, contracts and worst-case notional in micro-dollars. */
export interface OrderExposure {
  side: 'buy' | 'sell';
  qty: number;
  micros: number;
}

/** An order the gateway counted, once the exchange named it. */
export interface BoundOrder {
  token: string;
  keys: string[];
  participant: string;
}

/** A reservation refused: the count that was full and the value the order would have brought it to. */
export interface Refusal {
  count: OpenOrderCount;
  observed: number;
}

/**
 * The open-order counts shared by every instance: a reservation takes its share of each count the order
 * falls under, all or none, atomically (one Lua script in Redis; one synchronous step in memory).
 */
export interface OpenOrderStore {
  reserve(counts: readonly OpenOrderCount[], token: string, exposure: OrderExposure): Promise<Refusal | undefined>;
  /** The refusal a reservation would meet now; nothing is taken (the what-if route). */
  judge(counts: readonly OpenOrderCount[], exposure: OrderExposure): Promise<Refusal | undefined>;
  /** The share of a reservation the exchange answered with an order id, remembered until the order closes. */
  bind(orderId: string, order: BoundOrder): Promise<void>;
  /** Gives back a reservation that opened nothing. */
  release(token: string, keys: readonly string[]): Promise<void>;
  /** Gives back the share of a bound order that is closed (cancelled, filled, expired, rejected). */
  releaseOrder(orderId: string): Promise<void>;
  /** A bound order partly filled: its open quantity is at most `leaves` now (the rest is position). */
  leaves(orderId: string, leaves: number): Promise<void>;
  bound(): Promise<Map<string, BoundOrder>>;
  /** How many orders each count of orders holds now (the ops console reads it). */
  held(keys: readonly string[]): Promise<number[]>;
  /** Drops reservations never bound nor released after `olderThanMs` (an instance died between reserve and answer). */
  sweep(keys: readonly string[], olderThanMs: number): Promise<void>;
}

const EXPOSURE_KINDS: ReadonlySet<CountKind | undefined> = new Set(['notional', 'position']);

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

  reserve(counts: readonly OpenOrderCount[], token: string, exposure: OrderExposure): Promise<Refusal | undefined> {
    return this.run(RESERVE, counts, token, exposure);
  }

  judge(counts: readonly OpenOrderCount[], exposure: OrderExposure): Promise<Refusal | undefined> {
    return this.run(JUDGE, counts, 'judge', exposure);
  }

  private async run(script: string, counts: readonly OpenOrderCount[], token: string, exposure: OrderExposure): Promise<Refusal | undefined> {
    const keys = counts.map((count) => this.countPrefix + count.key);
    const specs = counts.flatMap((count) => [count.kind ?? 'orders', count.max, EXPOSURE_KINDS.has(count.kind) ? Math.trunc(count.position ?? 0) : 0]);
    const [index, observed] = (await this.redis.eval(script, keys.length, ...keys, token, exposure.side, exposure.qty, exposure.micros, ...specs)) as [number, string];
    return index === 0 ? undefined : { count: counts[index - 1], observed: Number(observed) };
  }

  async bind(orderId: string, order: BoundOrder): Promise<void> {
    await this.redis.multi().hset(this.ordersKey, orderId, JSON.stringify(order)).sadd(this.tokensKey, order.token).exec();
  }

  async release(token: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.redis.eval(RELEASE, keys.length, ...keys.map((key) => this.countPrefix + key), token);
  }

  async releaseOrder(orderId: string): Promise<void> {
    await this.redis.eval(RELEASE_ORDER, 2, this.ordersKey, this.tokensKey, orderId, this.countPrefix);
  }

  async leaves(orderId: string, leaves: number): Promise<void> {
    await this.redis.eval(LEAVES, 1, this.ordersKey, orderId, this.countPrefix, Math.max(0, Math.trunc(leaves)));
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
