import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type CancelRejectMessage, type ExecutionMessage, OrderStreamTap, type OrdersUpdate } from '@lib/exchange';
import { JOURNAL_DATABASE, type JournalDatabase, type JournalEntry } from '@lib/journal';

import { OrderSightings } from './order-sightings.js';
import { UnknownOrders } from './unknown-orders.service.js';

/** The execution fields a journal record keeps (the rest of the message is the exchange's detail). */
const EXECUTION_FIELDS = ['type', 'lastShares', 'lastPx', 'text', 'orderRejectReason', 'unsolicitedCancelReason', 'tradeId', 'aggressor', 'transactTime'] as const;
const ORDER_FIELDS = ['state', 'account', 'symbol', 'side', 'orderQty', 'price', 'leavesQty', 'cumQty', 'avgPx'] as const;

/**
 * Issue 27 items 2 and 3, from the exchange order stream (OrderStreamTap): every execution (new,
 * fills, cancels, rejects, busts, whatever the stream carries) and cancel reject becomes a `stream`
 * record of the order's journal timeline, under its clordId and order id; and every order seen is
 * remembered (OrderSightings) so that an UNKNOWN insert is resolved from the stream before any order
 * search is spent.
 */
@Injectable()
export class OrderStreamJournal implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OrderStreamJournal');
  private stop: (() => void) | undefined;

  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    private readonly tap: OrderStreamTap,
    private readonly sightings: OrderSightings,
    private readonly unknown: UnknownOrders,
  ) {}

  onModuleInit(): void {
    this.stop = this.tap.listen((update) => this.received(update));
  }

  onModuleDestroy(): void {
    this.stop?.();
  }

  private received(update: OrdersUpdate): void {
    const entry = 'execution' in update ? this.execution(update.execution) : cancelRejectEntry(update.cancelReject);
    this.store.journal.append(entry).catch((error: Error) => this.logger.error(`order journal: a stream event of order ${entry.orderId ?? entry.clordId ?? '?'} was not recorded: ${error.message}`));
  }

  private execution(execution: ExecutionMessage): JournalEntry {
    const order = execution.order;
    const clordId = nonEmpty(order?.clordId);
    if (order && clordId) {
      this.sightings.saw(order.account, { id: order.id, clordId, state: order.state });
      this.unknown.sighted(order.account, clordId);
    }
    return { kind: 'stream', clordId, orderId: order?.id, data: { event: 'execution', executionId: execution.id, ...pick(execution, EXECUTION_FIELDS), order: order ? pick(order, ORDER_FIELDS) : null } };
  }
}

function cancelRejectEntry(reject: CancelRejectMessage): JournalEntry {
  return { kind: 'stream', clordId: nonEmpty(reject.clordId), orderId: nonEmpty(reject.orderId), data: { event: 'cancelReject', ...reject } };
}

function pick(message: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((field) => message[field] !== undefined && message[field] !== null && message[field] !== '').map((field) => [field, message[field]]));
}

const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
