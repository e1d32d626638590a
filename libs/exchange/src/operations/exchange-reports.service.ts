import { Injectable } from '@nestjs/common';
import { type BudgetedReply, type RouteBudget } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type { OrderSearchRequest, TradeSearchRequest } from '../schemas/order-search.schema.js';
import type { TradeStatsRequest } from '../schemas/trade-stats.schema.js';
import type { AccountCallerContext } from './caller-context.js';
import { EXCHANGE_BUDGETS } from '../budget/exchange-budgets.js';

/** Reports (spec 4.1 /v1/report/*): account-scoped searches and statistics. */
@Injectable()
export class ExchangeReports {
  constructor(private readonly exchange: ExchangeHttpClient) {}

  searchOrders(caller: AccountCallerContext, request: OrderSearchRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/orders/search', request, EXCHANGE_BUDGETS.searchOrders);
  }

  searchTrades(caller: AccountCallerContext, request: TradeSearchRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/trades/search', request, EXCHANGE_BUDGETS.searchTrades);
  }

  tradeStats(caller: AccountCallerContext, request: TradeStatsRequest): Promise<BudgetedReply> {
    return this.post(caller, '/v1/report/trades/stats', request, EXCHANGE_BUDGETS.tradeStats);
  }

  private post(caller: AccountCallerContext, path: string, body: unknown, budget: RouteBudget) {
    return this.exchange.send({ ...caller, method: 'POST', path, body, budget });
  }
}
