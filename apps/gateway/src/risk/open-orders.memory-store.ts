import { type Clock, systemClock } from '@lib/core';
import type { BoundOrder, OpenOrderCount, OpenOrderStore, OrderExposure, Refusal } from './open-orders.store.js';

/** One reservation's share of one count: when it was taken, and what it adds (an order count adds one). */
interface Share extends OrderExposure {
  at: number;
}

/** The open-order counts of a single instance (no Redis): the same rules as the Lua scripts, in one synchronous step. */
export class MemoryOpenOrderStore implements OpenOrderStore {
  private readonly counts = new Map<string, Map<string, Share>>();
  private readonly orders = new Map<string, BoundOrder>();

  constructor(private readonly clock: Clock = systemClock) {}

  async reserve(counts: readonly OpenOrderCount[], token: string, exposure: OrderExposure): Promise<Refusal | undefined> {
    const refusal = await this.judge(counts, exposure);
    if (refusal) return refusal;
    for (const count of counts) {
      if (!this.counts.has(count.key)) this.counts.set(count.key, new Map());
      this.counts.get(count.key)!.set(token, { ...exposure, at: this.clock.now() });
    }
    return undefined;
  }

  async judge(counts: readonly OpenOrderCount[], exposure: OrderExposure): Promise<Refusal | undefined> {
    const sign = exposure.side === 'buy' ? 1 : -1;
    for (const count of counts) {
      const shares = [...(this.counts.get(count.key)?.values() ?? [])];
      const kind = count.kind ?? 'orders';
      if (kind === 'orders' && shares.length + 1 > count.max) return { count, observed: shares.length + 1 };
      if (kind === 'notional') {
        const held = shares.reduce((sum, share) => sum + share.micros, 0);
        if (held + exposure.micros > count.max) return { count, observed: held + exposure.micros };
      }
      if (kind === 'position') {
        const before = Math.trunc(count.position ?? 0) + sign * shares.filter((share) => share.side === exposure.side).reduce((sum, share) => sum + share.qty, 0);
        const after = before + sign * exposure.qty;
        if (Math.abs(after) > count.max && Math.abs(after) > Math.abs(before)) return { count, observed: after };
      }
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

  async leaves(orderId: string, leaves: number): Promise<void> {
    const order = this.orders.get(orderId);
    for (const key of order?.keys ?? []) {
      const share = this.counts.get(key)?.get(order!.token);
      if (!share || leaves >= share.qty) continue;
      share.micros = share.qty > 0 ? Math.floor((share.micros * leaves) / share.qty) : share.micros;
      share.qty = Math.max(0, Math.trunc(leaves));
    }
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
      for (const [token, share] of this.counts.get(key) ?? []) if (this.clock.now() - share.at > olderThanMs && !boundTokens.has(token)) this.counts.get(key)!.delete(token);
    }
  }
}
