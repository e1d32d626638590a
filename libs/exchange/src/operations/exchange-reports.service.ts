import { Injectable } from '@nestjs/common';
import { type BudgetedReply, ROUTE_BUDGETS, type RouteBudget } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type { OrderSearchRequest, TradeSearchRequest } from '../schemas/order-search.schema.js';
import type { TradeStatsRequest } from '../schemas/trade-stats.schema.js';
import type { AccountCallerContext } from './caller-context.js';

/** Reports (spec 4.1 /v1/report/*): account-scoped searches and statistics. */
@Injectable()
export class ExchangeReports {
  constructor(private readonly exchange: ExchangeHttpClient) {}

  searchOrders(caller: AccountCallerContext, request: OrderSearchRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/orders/search', request, ROUTE_BUDGETS.exchange.searchOrders);
  }

  searchTrades(caller: AccountCallerContext, request: TradeSearchRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/trades/search', request, ROUTE_BUDGETS.exchange.searchTrades);
  }

  tradeStats(caller: AccountCallerContext, request: TradeStatsRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/trades/stats', request, ROUTE_BUDGETS.exchange.tradeStats);
  }

  private post(caller: AccountCallerContext, path: string, body: unknown, budget: RouteBudget) {
    return this.exchange.send({ ...caller, method: 'POST', path, body, budget });
  }
}
