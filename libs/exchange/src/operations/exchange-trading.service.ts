import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { type BudgetedReply } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type {
  BatchInsertRequest,
  BatchReplaceRequest,
  CancelOrderRequest,
  OrderRequest,
  PreviewOrderRequest,
} from '../schemas/order-request.schema.js';
import type { AccountCallerContext } from './caller-context.js';
import { EXCHANGE_BUDGETS } from '../budget/exchange-budgets.js';

/**
 * An insert that times out is never resent: the 504 names the clordId so the client can look the
 * order up. An order sent without one gets one here, so that answer is always possible.
 */
export function withClordId(order: OrderRequest): OrderRequest {
  return order.clordId ? order : { ...order, clordId: `gw-${randomUUID()}` };
}

/** Order entry (spec 4.1 /v1/trading/*): every call acts for one participant. */
@Injectable()
export class ExchangeTrading {
  constructor(private readonly exchange: ExchangeHttpClient) {}

  insertOrder(caller: AccountCallerContext, request: OrderRequest): Promise<BudgetedReply> {
    const order = withClordId(request);
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/trading/orders',
      body: order,
      budget: EXCHANGE_BUDGETS.insertOrder,
      context: { clordId: order.clordId },
    });
  }

  previewOrder(caller: AccountCallerContext, request: PreviewOrderRequest): Promise<BudgetedReply> {
    // No published limit for previews (upstream-facts lists order entry and queries only).
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/trading/orders/preview',
      body: request,
      budget: null,
    });
  }

  insertBatch(caller: AccountCallerContext, request: BatchInsertRequest): Promise<BudgetedReply> {
    const requests = request.requests.map(withClordId);
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/trading/orders/list',
      body: { requests },
      budget: EXCHANGE_BUDGETS.batchInsert,
      context: { clordIds: requests.map((order) => order.clordId) },
    });
  }

  replaceBatch(caller: AccountCallerContext, request: BatchReplaceRequest): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/trading/orders/replace/list',
      body: request,
      budget: EXCHANGE_BUDGETS.batchReplace,
      context: { orderIds: request.requests.map((replace) => replace.orderId) },
    });
  }

  /** `forCancel`: the read a cancel needs first (who owns its order), never refused by the bulkheads. */
  openOrders(caller: AccountCallerContext, forCancel = false): Promise<BudgetedReply> {
    // No published limit for the open-orders snapshot.
    return this.exchange.send({
      ...caller,
      method: 'GET',
      path: '/v1/trading/orders/open',
      budget: null,
      ...(forCancel ? { forCancel } : {}),
    });
  }

  cancelOrder(caller: AccountCallerContext, request: CancelOrderRequest): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'POST',
      path: '/v1/trading/orders/cancel',
      body: request,
      budget: EXCHANGE_BUDGETS.cancelOrder,
    });
  }
}
