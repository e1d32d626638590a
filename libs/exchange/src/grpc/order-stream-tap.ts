import { Injectable, Logger } from '@nestjs/common';

import type { OrdersSnapshot, OrdersUpdate } from './order-updates.messages.js';

export type OrderStreamListener = (update: OrdersUpdate) => void;
/** The open orders each (re)opened order stream starts with. */
export type OrderSnapshotListener = (orders: OrdersSnapshot['orders']) => void;

/**
 * The server side's view of the exchange order stream: every execution (and cancel reject) the
 * instance's CreateOrderSubscription receives, handed to in-process listeners (the order journal and
 * the UNKNOWN order resolver) as well as to the hub's topics. A listener never blocks or breaks the feed.
 */
@Injectable()
export class OrderStreamTap {
  private readonly logger = new Logger(OrderStreamTap.name);
  private readonly listeners = new Set<OrderStreamListener>();
  private readonly snapshotListeners = new Set<OrderSnapshotListener>();

  /** Returns the function that stops listening. */
  listen(listener: OrderStreamListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The open orders each stream starts with (an order placed before the stream opened shows here, not as an execution). */
  listenSnapshot(listener: OrderSnapshotListener): () => void {
    this.snapshotListeners.add(listener);
    return () => this.snapshotListeners.delete(listener);
  }

  emit(update: OrdersUpdate): void {
    for (const listener of this.listeners) this.safely(() => listener(update));
  }

  emitSnapshot(orders: OrdersSnapshot['orders']): void {
    for (const listener of this.snapshotListeners) this.safely(() => listener(orders));
  }

  private safely(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.logger.error(`an order stream listener failed: ${(error as Error).message}`);
    }
  }
}
