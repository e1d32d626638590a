import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { Clock } from '@lib/core';
import type { IdempotencyRecord } from '@lib/journal';
import { RetailOrders } from '@lib/retail';

import {
  CHANGE_FINAL_MS,
  type ChangeOutcome,
  type RetailOrderView,
  modifyIsComparable,
  modifyRequestOf,
  showsModifyTerms,
} from './change-terms.js';

/**
 * Resolves an UNKNOWN retail modify (sent, answer lost) from the order's current terms, read with
 * `GET /v1/order/{id}` (one read per pending modify per pass, from the retail read budget): the price
 * and quantity the modify asked for → applied; other terms in a read made once the call is final
 * (CHANGE_FINAL_MS after it was marked UNKNOWN) → not applied; else undecided (PENDING). A modify that
 * sets neither price nor quantity cannot be told from its order and stays PENDING.
 */
@Injectable()
export class RetailChangeFinder {
  constructor(
    private readonly orders: RetailOrders,
    private readonly clock: Clock,
  ) {}

  async find(record: IdempotencyRecord): Promise<ChangeOutcome | undefined> {
    const request = modifyRequestOf(record);
    if (!request || !record.participant || !modifyIsComparable(request.body)) return undefined;
    // Taken before the read: a read started after the call was final shows its outcome.
    const final = record.state === 'unknown' && this.clock.wallNow() - record.updatedAt.getTime() >= CHANGE_FINAL_MS;
    const reply = await this.orders.get(
      { account: record.participant, team: record.team, requestId: `resolve-${randomUUID()}` },
      request.orderId,
    );
    const order = (JSON.parse(reply.text) as { order?: RetailOrderView }).order;
    if (!order) return undefined;
    if (showsModifyTerms(order, request.body)) return { orderId: request.orderId, applied: true, state: order.state };
    if (!final) return undefined;
    const shown = `price ${JSON.stringify(order.price?.value ?? null)}, quantity ${JSON.stringify(order.quantity ?? null)}`;
    return {
      orderId: request.orderId,
      applied: false,
      why: `after the call was final, order ${request.orderId} shows ${shown}`,
    };
  }
}
