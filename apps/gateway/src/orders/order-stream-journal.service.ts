import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG } from '@lib/core';
import {
  type CancelRejectMessage,
  type ExecutionMessage,
  type OrderMessage,
  OrderStreamTap,
  type OrdersUpdate,
} from '@lib/exchange';
import { JOURNAL_DATABASE, type JournalDatabase, type JournalEntry } from '@lib/journal';

import type { GatewayConfig } from '../config/gateway-config.schema.js';
import { OrderSightings, type ReplacedVersion, type SightedOrder } from './order-sightings.js';
import { UnknownOrders } from './unknown-orders.service.js';

/** The execution fields a journal record keeps (the rest of the message is the exchange's detail). */
const EXECUTION_FIELDS = [
  'type',
  'lastShares',
  'lastPx',
  'text',
  'orderRejectReason',
  'unsolicitedCancelReason',
  'tradeId',
  'aggressor',
  'transactTime',
] as const;
const ORDER_FIELDS = [
  'state',
  'account',
  'symbol',
  'side',
  'orderQty',
  'price',
  'leavesQty',
  'cumQty',
  'avgPx',
] as const;

/**
 * Issue 27 items 2 and 3, from the exchange order stream (OrderStreamTap): every execution (new,
 * fills, cancels, rejects, busts, whatever the stream carries) and cancel reject becomes a `stream`
 * record of the order's journal timeline, under its clordId and order id; and every order seen is
 * remembered (OrderSightings) so that an UNKNOWN insert is resolved from the stream before any order
 * search is spent; a replace's execution keeps the order's new version for an UNKNOWN replace likewise.
 */
@Injectable()
export class OrderStreamJournal implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OrderStreamJournal');
  private readonly stops: (() => void)[] = [];
  /** `journal.enabled: false` (a bench switch): orders are still sighted (UNKNOWN resolution), nothing is journaled. */
  private readonly journaling: boolean;

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    private readonly tap: OrderStreamTap,
    private readonly sightings: OrderSightings,
    private readonly unknown: UnknownOrders,
    private readonly clock: Clock,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.journaling = config.journal.enabled;
  }

  onModuleInit(): void {
    this.stops.push(
      this.tap.listen((update) => this.received(update)),
      this.tap.listenSnapshot((orders) => this.snapshot(orders)),
      // The drop copy's executions only sight orders: the order stream journals the same executions.
      this.tap.listenDropCopy((executions) => {
        for (const execution of executions) {
          if (!execution.order) continue;
          this.sight(execution.order, 'drop copy');
          this.sightReplace(execution, 'drop copy');
        }
      }),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.stops) stop();
  }

  /**
   * A stream's opening snapshot: open orders placed before it opened (an UNKNOWN insert's order among
   * them) are sighted, and each order's current version is kept as a replace would be (a snapshot
   * received after an UNKNOWN replace's intent that shows its terms settles it); nothing is journaled.
   */
  private snapshot(orders: readonly OrderMessage[]): void {
    const seenAt = this.clock.wallNow();
    for (const order of orders) {
      this.sight(order);
      this.sightings.sawReplace(order.account, order.id, { order: { ...order }, seenAt, source: 'order stream' });
      this.unknown.replaced(order.account, order.id);
    }
  }

  private sight(order: OrderMessage, source: SightedOrder['source'] = 'order stream'): void {
    const clordId = nonEmpty(order.clordId);
    if (!clordId) return;
    this.sightings.saw(order.account, { id: order.id, clordId, state: order.state, source, terms: { ...order } });
    this.unknown.sighted(order.account, clordId);
  }

  /** A replace's execution: the order's new version, for an UNKNOWN replace of it (UnknownOrders). */
  private sightReplace(execution: ExecutionMessage, source: ReplacedVersion['source']): void {
    const order = execution.order;
    if (!order || execution.type !== 'EXECUTION_TYPE_REPLACE') return;
    this.sightings.sawReplace(order.account, order.id, { order: { ...order }, seenAt: this.clock.wallNow(), source });
    this.unknown.replaced(order.account, order.id);
  }

  /**
   * Nothing waits for a stream record, so it starts no INSERT of its own (appendSoon): it rides with the
   * next record's write (the next order's intent, usually within a millisecond at load), or goes alone
   * after a few ms. One INSERT round trip fewer per execution: at 1,000 orders/s that was an INSERT per order.
   */
  private received(update: OrdersUpdate): void {
    const entry = 'execution' in update ? this.execution(update.execution) : cancelRejectEntry(update.cancelReject);
    if (!this.journaling) return;
    this.store.journal
      .appendSoon(entry)
      .catch((error: Error) =>
        this.logger.error(
          `order journal: a stream event of order ${entry.orderId ?? entry.clordId ?? '?'} was not recorded: ${error.message}`,
        ),
      );
  }

  private execution(execution: ExecutionMessage): JournalEntry {
    const order = execution.order;
    const clordId = nonEmpty(order?.clordId);
    if (order) {
      this.sight(order);
      this.sightReplace(execution, 'order stream');
    }
    return {
      kind: 'stream',
      clordId,
      orderId: order?.id,
      data: {
        event: 'execution',
        executionId: execution.id,
        ...pick(execution, EXECUTION_FIELDS),
        order: order ? pick(order, ORDER_FIELDS) : null,
      },
    };
  }
}

function cancelRejectEntry(reject: CancelRejectMessage): JournalEntry {
  return {
    kind: 'stream',
    clordId: nonEmpty(reject.clordId),
    orderId: nonEmpty(reject.orderId),
    data: { event: 'cancelReject', ...reject },
  };
}

/** The fields of a streamed message that hold something, in `fields`' order (a loop: this runs for every execution of the stream). */
function pick(message: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) {
    const value = message[field];
    if (value !== undefined && value !== null && value !== '') picked[field] = value;
  }
  return picked;
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
