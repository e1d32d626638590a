import { randomUUID } from 'node:crypto';

import type { LuaScript, RedisClient } from '@lib/core';

import {
  ADOPT,
  ANNOUNCE,
  AMEND,
  BIND,
  REBIND,
  JUDGE,
  LEAVES,
  REBUILT,
  RELEASE,
  RELEASE_ORDER,
  RESERVE,
  SWEEP,
} from './open-orders.scripts.js';

/** Counts hold notional in micro-dollars (integers: no rounding drift); refusals name dollars. */
export const MICROS = 1_000_000;

/** The owner prefix of a retail account's counted orders (its "participant" in the counts). */
export const RETAIL_OWNER = 'retail:';
export const retailOwner = (account: string) => RETAIL_OWNER + account;

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

/** A bound order with what it adds to each of its counts: enough to count it again where its shares are missing. */
export interface CountedOrder extends BoundOrder {
  /** The kind of each count, in the order of `keys`. */
  kinds: CountKind[];
  exposure: OrderExposure;
}

/** A reservation refused: the count that was full and the value the order would have brought it to. */
export interface Refusal {
  count: OpenOrderCount;
  observed: number;
}

/**
 * A change of a bound order's terms (a retail modify): `hold` before it is sent (the larger of old and
 * new, judged where it grows; `qty` undefined keeps the quantity, `microsPerContract` undefined keeps
 * the notional per contract), `set` once answered (exact `qty` and `micros`, unjudged).
 */
export type Amendment =
  { mode: 'hold'; qty?: number; microsPerContract?: number } | { mode: 'set'; qty: number; micros: number };

/** What an amendment found and left: the share's quantity and notional before and after (undefined: the order holds no exposure share). */
export interface Amended {
  before?: { qty: number; micros: number };
  after?: { qty: number; micros: number };
}

/** The counts' generation is not the one this instance holds (Redis lost them, or it has not adopted one yet): nothing judged, nothing taken. */
export const LOST = 'lost';

/**
 * The open-order counts shared by every instance: a reservation takes its share of each count the order
 * falls under, all or none, atomically (one Lua script in Redis; one synchronous step in memory).
 */
export interface OpenOrderStore {
  reserve(
    counts: readonly OpenOrderCount[],
    token: string,
    exposure: OrderExposure,
  ): Promise<Refusal | typeof LOST | undefined>;
  /** The refusal a reservation would meet now; nothing is taken (the what-if route). */
  judge(counts: readonly OpenOrderCount[], exposure: OrderExposure): Promise<Refusal | typeof LOST | undefined>;
  /**
   * Takes the counts' generation in force (creating one where Redis has none): true when its counts are
   * complete (reservations judged from now on), false when they must be rebuilt first (`restore` each
   * open order, then `rebuilt`).
   */
  adopt(): Promise<boolean>;
  /** The adopted generation's counts hold every open order: reservations are judged from now on, on every instance that adopts it. */
  rebuilt(): Promise<void>;
  /** The share of a reservation the exchange answered with an order id, remembered until the order closes (counted again where its shares were lost). */
  bind(orderId: string, order: CountedOrder): Promise<void>;
  /** An order open at the exchange counted again (a rebuild), unless already bound. */
  restore(orderId: string, order: CountedOrder): Promise<void>;
  /** Changes a bound order's share of its exposure counts (see Amendment); the refusal of the count it would overfill. */
  amend(
    orderId: string,
    counts: readonly OpenOrderCount[],
    change: Amendment,
  ): Promise<Refusal | typeof LOST | Amended>;
  /** A replace answered with a new order id for a bound order: its share moves to that id (nothing when the old id holds none). */
  rebind(orderId: string, newOrderId: string): Promise<void>;
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
  /** A reservation was answered (bound, released, or kept on an unknown outcome): no longer in flight. */
  settled(token: string): Promise<void>;
  /** How many reservations are in flight on any instance (taken, not answered), those older than `olderThanMs` dropped first. */
  inFlight(olderThanMs: number): Promise<number>;
}

const EXPOSURE_KINDS: ReadonlySet<CountKind | undefined> = new Set(['notional', 'position']);

export class RedisOpenOrderStore implements OpenOrderStore {
  private readonly countPrefix: string;
  private readonly ordersKey: string;
  private readonly tokensKey: string;
  private readonly pendingKey: string;
  private readonly generationKeys: [string, string];
  /** The generation adopted ('' before: every reservation is answered LOST until one is). */
  private generation = '';
  private candidate = '';

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag for every key: a script touches several, which a cluster allows only within one slot.
    this.countPrefix = `${prefix}{risk}:open:`;
    this.ordersKey = `${prefix}{risk}:open-orders`;
    this.tokensKey = `${prefix}{risk}:open-tokens`;
    this.pendingKey = `${prefix}{risk}:open-pending`;
    this.generationKeys = [`${prefix}{risk}:open-generation`, `${prefix}{risk}:open-rebuilt`];
  }

  /** Loads every script (the first calls need no NOSCRIPT fallback). */
  async load(): Promise<void> {
    await Promise.all(
      [ADOPT, AMEND, ANNOUNCE, BIND, JUDGE, LEAVES, REBIND, REBUILT, RELEASE, RELEASE_ORDER, RESERVE, SWEEP].map(
        (script) => script.load(this.redis),
      ),
    );
  }

  async adopt(): Promise<boolean> {
    const [generation, complete] = (await ADOPT.run(this.redis, this.generationKeys, [randomUUID()])) as [
      string,
      number,
    ];
    this.candidate = generation;
    if (Number(complete) === 1) this.generation = generation;
    return Number(complete) === 1;
  }

  /** The risk-limits version the adopted generation counts (a limits change names it: `<version>:<id>`), 0 for any. */
  countsFor(): number {
    const match = /^(\d+):/.exec(this.candidate);
    return match ? Number(match[1]) : 0;
  }

  /** The generation adopted now ('' before one is): the one a reservation taken now counts in. */
  heldGeneration(): string {
    return this.generation;
  }

  /** The counts' generation in force in Redis now (null: none, Redis lost it and no instance adopted one yet). */
  generationInForce(): Promise<string | null> {
    return this.redis.get(this.generationKeys[0]);
  }

  /** ANNOUNCE: a reservation in flight taken again in `generation`; false when that generation is gone. */
  async announce(order: CountedOrder, generation: string): Promise<boolean> {
    const { token, keys, kinds, exposure } = order;
    const answer = await ANNOUNCE.run(
      this.redis,
      [...keys.map((key) => this.countPrefix + key), this.generationKeys[0], this.pendingKey],
      [token, exposure.side, exposure.qty, exposure.micros, generation, ...kinds],
    );
    return Number(answer) === 1;
  }

  async rebuilt(): Promise<void> {
    if (Number(await REBUILT.run(this.redis, this.generationKeys, [this.candidate])) === 1)
      this.generation = this.candidate;
  }

  reserve(
    counts: readonly OpenOrderCount[],
    token: string,
    exposure: OrderExposure,
  ): Promise<Refusal | typeof LOST | undefined> {
    return this.run(RESERVE, counts, token, exposure, [this.pendingKey]);
  }

  judge(counts: readonly OpenOrderCount[], exposure: OrderExposure): Promise<Refusal | typeof LOST | undefined> {
    return this.run(JUDGE, counts, 'judge', exposure, []);
  }

  async settled(token: string): Promise<void> {
    await this.redis.zrem(this.pendingKey, token);
  }

  async inFlight(olderThanMs: number): Promise<number> {
    const [seconds, micros] = await this.redis.time();
    const now = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
    await this.redis.zremrangebyscore(this.pendingKey, '-inf', now - olderThanMs);
    return this.redis.zcard(this.pendingKey);
  }

  private async run(
    script: LuaScript,
    counts: readonly OpenOrderCount[],
    token: string,
    exposure: OrderExposure,
    tail: string[],
  ): Promise<Refusal | typeof LOST | undefined> {
    const keys = [...counts.map((count) => this.countPrefix + count.key), this.generationKeys[0], ...tail];
    const specs = counts.flatMap((count) => [
      count.kind ?? 'orders',
      count.max,
      EXPOSURE_KINDS.has(count.kind) ? Math.trunc(count.position ?? 0) : 0,
    ]);
    const [index, observed] = (await script.run(this.redis, keys, [
      token,
      exposure.side,
      exposure.qty,
      exposure.micros,
      ...specs,
      this.generation,
    ])) as [number, string];
    if (Number(index) === -1) return LOST;
    return Number(index) === 0 ? undefined : { count: counts[Number(index) - 1], observed: Number(observed) };
  }

  async amend(
    orderId: string,
    counts: readonly OpenOrderCount[],
    change: Amendment,
  ): Promise<Refusal | typeof LOST | Amended> {
    const keys = [...counts.map((count) => this.countPrefix + count.key), this.generationKeys[0], this.ordersKey];
    const specs = counts.flatMap((count) => [
      count.kind ?? 'orders',
      count.max,
      EXPOSURE_KINDS.has(count.kind) ? Math.trunc(count.position ?? 0) : 0,
    ]);
    const [qty, micros] =
      change.mode === 'set' ? [change.qty, change.micros] : [change.qty ?? -1, change.microsPerContract ?? -1];
    const answer = (await AMEND.run(this.redis, keys, [
      orderId,
      change.mode,
      qty,
      micros,
      ...specs,
      this.generation,
    ])) as (number | string)[];
    const index = Number(answer[0]);
    if (index === -1) return LOST;
    if (index > 0) return { count: counts[index - 1], observed: Number(answer[1]) };
    const [oldQty, oldMicros, newQty, newMicros] = answer.slice(2).map(Number);
    return oldQty < 0 ? {} : { before: { qty: oldQty, micros: oldMicros }, after: { qty: newQty, micros: newMicros } };
  }

  async bind(orderId: string, order: CountedOrder): Promise<void> {
    const { token, keys, participant, kinds, exposure } = order;
    const bound: BoundOrder = { token, keys, participant };
    await BIND.run(
      this.redis,
      [...keys.map((key) => this.countPrefix + key), this.ordersKey, this.tokensKey],
      [orderId, token, exposure.side, exposure.qty, exposure.micros, JSON.stringify(bound), ...kinds],
    );
  }

  restore(orderId: string, order: CountedOrder): Promise<void> {
    return this.bind(orderId, order);
  }

  async rebind(orderId: string, newOrderId: string): Promise<void> {
    await REBIND.run(this.redis, [this.ordersKey], [orderId, newOrderId]);
  }

  async release(token: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await RELEASE.run(
      this.redis,
      keys.map((key) => this.countPrefix + key),
      [token],
    );
  }

  async releaseOrder(orderId: string): Promise<void> {
    await RELEASE_ORDER.run(this.redis, [this.ordersKey, this.tokensKey], [orderId, this.countPrefix]);
  }

  async leaves(orderId: string, leaves: number): Promise<void> {
    await LEAVES.run(this.redis, [this.ordersKey], [orderId, this.countPrefix, Math.max(0, Math.trunc(leaves))]);
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
    await SWEEP.run(this.redis, full, [this.tokensKey, olderThanMs]);
  }
}
