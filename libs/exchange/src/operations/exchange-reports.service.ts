import { Injectable } from '@nestjs/common';
import type { Viewer } from '@lib/fanout';
import { type BudgetedReply, type RouteBudget } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type { OrderSearchRequest, TradeSearchRequest } from '../schemas/order-search.schema.js';
import type { TradeStatsRequest } from '../schemas/trade-stats.schema.js';
import type { AccountCallerContext } from './caller-context.js';
import { EXCHANGE_BUDGETS } from '../budget/exchange-budgets.js';
import { tradeSearchView } from './trade-search.view.js';

/** Reports (spec 4.1 /v1/report/*): account-scoped searches and statistics. */
@Injectable()
export class ExchangeReports {
  constructor(private readonly exchange: ExchangeHttpClient) {}

  searchOrders(caller: AccountCallerContext, request: OrderSearchRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/orders/search', request, EXCHANGE_BUDGETS.searchOrders);
  }

  /**
   * `viewer`: the client holds only some of the firm's participants, and gets the trades as
   * `tradeSearchView` narrows them (the rule of the `exchange.trades` feed); none: the answer whole.
   */
  async searchTrades(
    caller: AccountCallerContext,
    request: TradeSearchRequest,
    viewer: Viewer | undefined,
  ): Promise<BudgetedReply> {
    const reply = await this.post(caller, '/v1/report/trades/search', request, EXCHANGE_BUDGETS.searchTrades);
    if (viewer === undefined || reply.status !== 200) return reply;
    return { ...reply, text: tradeSearchView(reply.text, viewer, request.orderId) };
  }

  tradeStats(caller: AccountCallerContext, request: TradeStatsRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/trades/stats', request, EXCHANGE_BUDGETS.tradeStats);
  }

  private post(caller: AccountCallerContext, path: string, body: unknown, budget: RouteBudget) {
    return this.exchange.send({ ...caller, method: 'POST', path, body, budget });
  }
}
