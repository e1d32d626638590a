import { type Clock, systemClock } from '@lib/core';
import {
  type Amended,
  type Amendment,
  type BoundOrder,
  type CountedOrder,
  LOST,
  type OpenOrderCount,
  type OpenOrderStore,
  type OrderExposure,
  type Refusal,
} from './open-orders.store.js';

/** One reservation's share of one count: when it was taken, and what it adds (an order count adds one). */
interface Share extends OrderExposure {
  at: number;
}

/** One count: its shares by reservation token, and their running sums (as the Lua scripts keep `#notional`, `#buy`, `#sell`). */
class Count {
  readonly shares = new Map<string, Share>();
  notional = 0;
  buy = 0;
  sell = 0;

  add(token: string, share: Share): void {
    this.remove(token);
    this.shares.set(token, share);
    this.sum(share, 1);
  }

  remove(token: string): void {
    const share = this.shares.get(token);
    if (!share) return;
    this.shares.delete(token);
    this.sum(share, -1);
  }

  /** A share's quantity and notional shrink to what is left of its order. */
  shrink(token: string, leaves: number): void {
    const share = this.shares.get(token);
    if (!share || leaves >= share.qty) return;
    this.sum(share, -1);
    share.micros = share.qty > 0 ? Math.floor((share.micros * leaves) / share.qty) : share.micros;
    share.qty = Math.max(0, Math.trunc(leaves));
    this.sum(share, 1);
  }

  private sum(share: Share, sign: 1 | -1): void {
    this.notional += sign * share.micros;
    if (share.side === 'buy') this.buy += sign * share.qty;
    else this.sell += sign * share.qty;
  }
}

/**
 * The open-order counts of a single instance (no Redis): the same rules as the Lua scripts, in one
 * synchronous step, in constant time per count (running sums, not a walk over the open orders).
 */
export class MemoryOpenOrderStore implements OpenOrderStore {
  private readonly counts = new Map<string, Count>();
  private readonly orders = new Map<string, BoundOrder>();
  /** Reservations taken and not yet answered, by token: when taken. */
  private readonly pending = new Map<string, number>();

  constructor(private readonly clock: Clock = systemClock) {}

  async reserve(
    counts: readonly OpenOrderCount[],
    token: string,
    exposure: OrderExposure,
  ): Promise<Refusal | typeof LOST | undefined> {
    const refusal = await this.judge(counts, exposure);
    if (refusal) return refusal;
    const at = this.clock.now();
    for (const count of counts) {
      let held = this.counts.get(count.key);
      if (!held) this.counts.set(count.key, (held = new Count()));
      held.add(token, { ...exposure, at });
    }
    this.pending.set(token, at);
    return undefined;
  }

  async settled(token: string): Promise<void> {
    this.pending.delete(token);
  }

  async inFlight(olderThanMs: number): Promise<number> {
    const now = this.clock.now();
    for (const [token, at] of this.pending) if (at <= now - olderThanMs) this.pending.delete(token);
    return this.pending.size;
  }

  /** What reserve would answer, taking nothing (the what-if route). */
  async judge(counts: readonly OpenOrderCount[], exposure: OrderExposure): Promise<Refusal | typeof LOST | undefined> {
    if (this.stale) return LOST;
    const sign = exposure.side === 'buy' ? 1 : -1;
    for (const count of counts) {
      const held = this.counts.get(count.key);
      const kind = count.kind ?? 'orders';
      if (kind === 'orders' && (held?.shares.size ?? 0) + 1 > count.max)
        return { count, observed: (held?.shares.size ?? 0) + 1 };
      if (kind === 'notional' && (held?.notional ?? 0) + exposure.micros > count.max)
        return { count, observed: (held?.notional ?? 0) + exposure.micros };
      if (kind === 'position') {
        const before = Math.trunc(count.position ?? 0) + sign * (held?.[exposure.side] ?? 0);
        const after = before + sign * exposure.qty;
        if (Math.abs(after) > count.max && Math.abs(after) > Math.abs(before)) return { count, observed: after };
      }
    }
    return undefined;
  }

  /** Set by a change of the counted limits: the counts are complete again once rebuilt. */
  private stale = false;

  /** One process's memory is never lost while it serves: its counts are complete unless the counted limits changed since. */
  async adopt(): Promise<boolean> {
    return !this.stale;
  }

  async rebuilt(): Promise<void> {
    this.stale = false;
  }

  /** The counted limits changed (RiskLimitsSource): no order is judged before the counts are rebuilt. */
  recount(): void {
    this.stale = true;
  }

  async bind(orderId: string, order: CountedOrder): Promise<void> {
    const { token, keys, participant } = order;
    this.orders.set(orderId, { token, keys, participant });
  }

  async rebind(orderId: string, newOrderId: string): Promise<void> {
    const order = this.orders.get(orderId);
    if (!order) return;
    this.orders.delete(orderId);
    this.orders.set(newOrderId, order);
  }

  async restore(orderId: string, order: CountedOrder): Promise<void> {
    const at = this.clock.now();
    const bound = this.orders.get(orderId);
    if (bound) {
      // Counts it does not hold yet (a limit added since it was bound) take its share under its own token.
      for (const key of order.keys.filter((key) => !bound.keys.includes(key))) {
        let held = this.counts.get(key);
        if (!held) this.counts.set(key, (held = new Count()));
        held.add(bound.token, { ...order.exposure, at });
        bound.keys = [...bound.keys, key];
      }
      return;
    }
    for (const key of order.keys) {
      let held = this.counts.get(key);
      if (!held) this.counts.set(key, (held = new Count()));
      held.add(order.token, { ...order.exposure, at });
    }
    await this.bind(orderId, order);
  }

  /** As the AMEND script: the bound order's exposure shares changed, judged where a `hold` grows them. */
  async amend(orderId: string, counts: readonly OpenOrderCount[], change: Amendment): Promise<Refusal | Amended> {
    const token = this.orders.get(orderId)?.token;
    if (token === undefined) return {};
    const changes: { held: Count; share: Share; qty: number; micros: number }[] = [];
    for (const count of counts) {
      const held = this.counts.get(count.key);
      const share = count.kind === 'notional' || count.kind === 'position' ? held?.shares.get(token) : undefined;
      if (!held || !share) continue;
      let { qty, micros } = change.mode === 'set' ? change : { qty: 0, micros: 0 };
      if (change.mode === 'hold') {
        const newQty = change.qty ?? share.qty;
        const per = change.microsPerContract ?? (share.qty > 0 ? share.micros / share.qty : 0);
        qty = Math.max(newQty, share.qty);
        micros = Math.max(Math.floor(per * newQty + 0.5), share.micros);
        if (count.kind === 'notional' && micros > share.micros && held.notional - share.micros + micros > count.max)
          return { count, observed: held.notional - share.micros + micros };
        if (count.kind === 'position' && qty > share.qty) {
          const sign = share.side === 'buy' ? 1 : -1;
          const was = Math.trunc(count.position ?? 0) + sign * held[share.side];
          const after = was + sign * (qty - share.qty);
          if (Math.abs(after) > count.max && Math.abs(after) > Math.abs(was)) return { count, observed: after };
        }
      }
      changes.push({ held, share, qty, micros });
    }
    const first = changes[0];
    const amended: Amended = first
      ? {
          before: { qty: first.share.qty, micros: first.share.micros },
          after: { qty: first.qty, micros: first.micros },
        }
      : {};
    for (const { held, share, qty, micros } of changes) held.add(token, { ...share, qty, micros });
    return amended;
  }

  async release(token: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) this.counts.get(key)?.remove(token);
  }

  async releaseOrder(orderId: string): Promise<void> {
    const order = this.orders.get(orderId);
    if (!order) return;
    this.orders.delete(orderId);
    await this.release(order.token, order.keys);
  }

  async leaves(orderId: string, leaves: number): Promise<void> {
    const order = this.orders.get(orderId);
    if (!order) return;
    for (const key of order.keys) this.counts.get(key)?.shrink(order.token, leaves);
  }

  async bound(): Promise<Map<string, BoundOrder>> {
    return new Map(this.orders);
  }

  async held(keys: readonly string[]): Promise<number[]> {
    return keys.map((key) => this.counts.get(key)?.shares.size ?? 0);
  }

  async sweep(keys: readonly string[], olderThanMs: number): Promise<void> {
    const boundTokens = new Set([...this.orders.values()].map((order) => order.token));
    const now = this.clock.now();
    for (const key of keys) {
      const held = this.counts.get(key);
      for (const [token, share] of held?.shares ?? [])
        if (now - share.at > olderThanMs && !boundTokens.has(token)) held!.remove(token);
    }
  }
}
