import { Injectable } from '@nestjs/common';

/** An order the exchange order stream showed: its id and latest state, by the clordId it was sent with. */
export interface SightedOrder {
  id: string;
  clordId: string;
  state?: string;
  /** Where it was seen: the order stream (its snapshot or an execution) or the firm's drop copy. */
  source?: 'order stream' | 'drop copy';
}

/** How many recent orders are remembered (the oldest go first). */
const CAPACITY = 20_000;

/**
 * The orders this instance recently saw on the exchange order stream, by participant and clordId: an
 * UNKNOWN insert whose order is here is resolved without spending an order search.
 */
@Injectable()
export class OrderSightings {
  private readonly orders = new Map<string, SightedOrder>();

  saw(participant: string, order: SightedOrder): void {
    const key = keyOf(participant, order.clordId);
    this.orders.delete(key);
    this.orders.set(key, order);
    if (this.orders.size > CAPACITY) this.orders.delete(this.orders.keys().next().value!);
  }

  find(participant: string, clordId: string): SightedOrder | undefined {
    return this.orders.get(keyOf(participant, clordId));
  }
}

const keyOf = (participant: string, clordId: string): string => `${participant}\u0000${clordId}`;
