import { Injectable } from '@nestjs/common';
import { Bulkheads } from '@lib/core';
import { type BudgetedReply } from '@lib/ratelimit';

import { RetailHttpClient } from '../client/retail-http.client.js';
import type {
  CancelAllOrders,
  CancelOrder,
  ClosePosition,
  CreateOrder,
  ModifyOrder,
  PreviewOrder,
} from '../schemas/order-request.schema.js';
import type { OpenOrdersQuery } from '../schemas/query.schema.js';
import { blockingPlan } from './blocking-deadline.js';
import { type RetailCaller, callerFields, segment } from './retail-caller.js';
import { RETAIL_BUDGETS } from '../budget/retail-budgets.js';

/**
 * Retail order operations (spec 4.2, 4.3; paths and bodies from upstream-facts). Answers are the
 * upstream's bytes, for the gateway to relay unchanged. Order entry is never resent after a timeout:
 * RetailHttpClient resends only on a 401, which means the request was not processed.
 */
@Injectable()
export class RetailOrders {
  constructor(
    private readonly http: RetailHttpClient,
    private readonly bulkheads: Bulkheads,
  ) {}

  /** A synchronous order blocks (spec 2.10): its maxBlockTime is checked against the client's cap, and it goes through the blocking pool. */
  async create(caller: RetailCaller, order: CreateOrder): Promise<BudgetedReply> {
    const { body, blocking, timeoutMs } = blockingPlan(
      order,
      this.http.timeoutMs,
      this.bulkheads.maxBlockSeconds(caller.client),
    );
    const context = { operation: 'createOrder', marketSlug: order.marketSlug };
    const call = {
      ...callerFields(caller),
      method: 'POST',
      path: '/v1/orders',
      body,
      blocking,
      budget: RETAIL_BUDGETS.createOrder,
      context,
    } as const;
    return this.http.send(timeoutMs === undefined ? call : { ...call, timeoutMs });
  }

  preview(caller: RetailCaller, body: PreviewOrder): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'POST',
      path: '/v1/order/preview',
      body,
      budget: RETAIL_BUDGETS.previewOrder,
    });
  }

  cancel(caller: RetailCaller, orderId: string, body: CancelOrder): Promise<BudgetedReply> {
    const path = `/v1/order/${segment(orderId)}/cancel`;
    return this.http.send({ ...callerFields(caller), method: 'POST', path, body, budget: RETAIL_BUDGETS.cancelOrder });
  }

  modify(caller: RetailCaller, orderId: string, body: ModifyOrder): Promise<BudgetedReply> {
    const path = `/v1/order/${segment(orderId)}/modify`;
    return this.http.send({ ...callerFields(caller), method: 'POST', path, body, budget: RETAIL_BUDGETS.modifyOrder });
  }

  cancelAll(caller: RetailCaller, body: CancelAllOrders): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'POST',
      path: '/v1/orders/open/cancel',
      body,
      budget: RETAIL_BUDGETS.cancelAllOrders,
    });
  }

  /** Places an order like create does, so it blocks and is never resent the same way. */
  async closePosition(caller: RetailCaller, request: ClosePosition): Promise<BudgetedReply> {
    const { body, blocking, timeoutMs } = blockingPlan(
      request,
      this.http.timeoutMs,
      this.bulkheads.maxBlockSeconds(caller.client),
    );
    const context = { operation: 'closePosition', marketSlug: request.marketSlug };
    const call = {
      ...callerFields(caller),
      method: 'POST',
      path: '/v1/order/close-position',
      body,
      blocking,
      budget: RETAIL_BUDGETS.closePosition,
      context,
    } as const;
    return this.http.send(timeoutMs === undefined ? call : { ...call, timeoutMs });
  }

  open(caller: RetailCaller, query: OpenOrdersQuery): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'GET',
      path: '/v1/orders/open',
      query,
      budget: RETAIL_BUDGETS.openOrders,
    });
  }

  get(caller: RetailCaller, orderId: string): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'GET',
      path: `/v1/order/${segment(orderId)}`,
      budget: RETAIL_BUDGETS.getOrder,
    });
  }
}
