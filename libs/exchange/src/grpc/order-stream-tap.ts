import { Injectable, Logger } from '@nestjs/common';

import type { ExecutionMessage, OrdersSnapshot, OrdersUpdate } from './order-updates.messages.js';

export type OrderStreamListener = (update: OrdersUpdate) => void;
/** The open orders each (re)opened order stream starts with. */
export type OrderSnapshotListener = (orders: OrdersSnapshot['orders']) => void;
/** A batch of the firm's drop copy (new executions only, deduplicated), while this instance holds it. */
export type DropCopyListener = (executions: readonly ExecutionMessage[]) => void;

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
  private readonly dropCopyListeners = new Set<DropCopyListener>();

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

  /** The firm's drop copy, while this instance holds it (the firm has one: it is never opened for this). */
  listenDropCopy(listener: DropCopyListener): () => void {
    this.dropCopyListeners.add(listener);
    return () => this.dropCopyListeners.delete(listener);
  }

  emitDropCopy(executions: readonly ExecutionMessage[]): void {
    for (const listener of this.dropCopyListeners) this.safely(() => listener(executions));
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
