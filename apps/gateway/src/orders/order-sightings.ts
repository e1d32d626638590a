import { Injectable } from '@nestjs/common';

/** An order the exchange order stream showed: its id and latest state, by the clordId it was sent with. */
export interface SightedOrder {
  id: string;
  clordId: string;
  state?: string;
  /** Where it was seen: the order stream (its snapshot or an execution) or the firm's drop copy. */
  source?: 'order stream' | 'drop copy';
  /** The order's fields as the stream or the search showed them (symbol, side, price, orderQty, …): whose call it may be. */
  terms?: Readonly<Record<string, unknown>>;
}

/** An order's version after a replace (EXECUTION_TYPE_REPLACE) or in a stream's opening snapshot, as the order stream or the drop copy showed it. */
export interface ReplacedVersion {
  /** The order's fields as the stream carried them (clordId, price, orderQty, …). */
  order: Readonly<Record<string, unknown>>;
  /** When this instance saw it (wall clock, ms). */
  seenAt: number;
  source: 'order stream' | 'drop copy';
}

/** Replaced versions remembered per order (the newest last). */
const VERSIONS_PER_ORDER = 8;

/** How many recent orders are remembered (the oldest go first). */
const CAPACITY = 20_000;

/**
 * The orders this instance recently saw on the exchange order stream, by participant and clordId: an
 * UNKNOWN insert whose order is here is resolved without spending an order search; and the replaced
 * versions of orders, by order id, for UNKNOWN replaces likewise.
 */
@Injectable()
export class OrderSightings {
  private readonly orders = new Map<string, SightedOrder>();
  /** Replaced versions by participant and order id: an UNKNOWN replace whose new version is here is resolved without an order lookup. */
  private readonly replaced = new Map<string, ReplacedVersion[]>();

  saw(participant: string, order: SightedOrder): void {
    const key = keyOf(participant, order.clordId);
    this.orders.delete(key);
    this.orders.set(key, order);
    if (this.orders.size > CAPACITY) this.orders.delete(this.orders.keys().next().value!);
  }

  find(participant: string, clordId: string): SightedOrder | undefined {
    return this.orders.get(keyOf(participant, clordId));
  }

  sawReplace(participant: string, orderId: string, version: ReplacedVersion): void {
    const key = keyOf(participant, orderId);
    const versions = [...(this.replaced.get(key) ?? []), version].slice(-VERSIONS_PER_ORDER);
    this.replaced.delete(key);
    this.replaced.set(key, versions);
    if (this.replaced.size > CAPACITY) this.replaced.delete(this.replaced.keys().next().value!);
  }

  /** The replaced versions of an order this instance saw, oldest first. */
  replacesOf(participant: string, orderId: string): readonly ReplacedVersion[] {
    return this.replaced.get(keyOf(participant, orderId)) ?? [];
  }
}

const keyOf = (participant: string, clordId: string): string => `${participant}\u0000${clordId}`;
