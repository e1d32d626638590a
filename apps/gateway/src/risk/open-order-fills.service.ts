import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { OrderStreamTap, type OrdersUpdate } from '@lib/exchange';

import { OpenOrders } from './open-orders.service.js';
import { CLOSED_ORDER_STATES } from './order-states.js';

/**
 * The order stream the gateway holds (OrderStreamTap: the `exchange.orders.<participant>` topics its
 * clients follow) keeps the counts current between reconciles: a closed order gives back its slot, its
 * notional and its open quantity; a partial fill moves what filled from open quantity to position
 * (the position itself is read from the exchange when the next order is judged). Orders the gateway did
 * not count are ignored by the store. Where no stream is followed, the reconcile a full count runs heals.
 */
@Injectable()
export class OpenOrderFills implements OnModuleInit, OnModuleDestroy {
  private stop?: () => void;

  constructor(
    private readonly tap: OrderStreamTap,
    private readonly open: OpenOrders,
  ) {}

  onModuleInit(): void {
    this.stop = this.tap.listen((update) => void this.received(update));
  }

  onModuleDestroy(): void {
    this.stop?.();
  }

  private async received(update: OrdersUpdate): Promise<void> {
    const order = 'execution' in update ? update.execution.order : null;
    if (!order?.id) return;
    if (CLOSED_ORDER_STATES.has(order.state)) return this.open.closed(order.id);
    const leaves = Number(order.leavesQty);
    if (order.leavesQty !== undefined && order.leavesQty !== null && Number.isFinite(leaves))
      await this.open.leaves(order.id, leaves);
  }
}
