import { Injectable, Logger } from '@nestjs/common';

import type { OrdersUpdate } from './order-updates.messages.js';

export type OrderStreamListener = (update: OrdersUpdate) => void;

/**
 * The server side's view of the exchange order stream: every execution (and cancel reject) the
 * instance's CreateOrderSubscription receives, handed to in-process listeners (the order journal and
 * the UNKNOWN order resolver) as well as to the hub's topics. A listener never blocks or breaks the feed.
 */
@Injectable()
export class OrderStreamTap {
  private readonly logger = new Logger(OrderStreamTap.name);
  private readonly listeners = new Set<OrderStreamListener>();

  /** Returns the function that stops listening. */
  listen(listener: OrderStreamListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(update: OrdersUpdate): void {
    for (const listener of this.listeners) {
      try {
        listener(update);
      } catch (error) {
        this.logger.error(`an order stream listener failed: ${(error as Error).message}`);
      }
    }
  }
}
