import { Injectable } from '@nestjs/common';
import { type BudgetedReply } from '@lib/ratelimit';

import { RetailHttpClient } from '../client/retail-http.client.js';
import type { ActivitiesQuery, PositionsQuery } from '../schemas/query.schema.js';
import { type RetailCaller, callerFields, segment } from './retail-caller.js';
import { RETAIL_BUDGETS } from '../budget/retail-budgets.js';

/** Account and market reads of the retail surface (spec 4.2, 4.3; queries from upstream-facts). */
@Injectable()
export class RetailPortfolio {
  constructor(private readonly http: RetailHttpClient) {}

  positions(caller: RetailCaller, query: PositionsQuery): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'GET',
      path: '/v1/portfolio/positions',
      query,
      budget: RETAIL_BUDGETS.positions,
    });
  }

  activities(caller: RetailCaller, query: ActivitiesQuery): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'GET',
      path: '/v1/portfolio/activities',
      query,
      budget: RETAIL_BUDGETS.activities,
    });
  }

  balances(caller: RetailCaller): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'GET',
      path: '/v1/account/balances',
      budget: RETAIL_BUDGETS.balances,
    });
  }

  bbo(caller: RetailCaller, slug: string): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'GET',
      path: `/v1/markets/${segment(slug)}/bbo`,
      budget: RETAIL_BUDGETS.marketData,
    });
  }

  book(caller: RetailCaller, slug: string): Promise<BudgetedReply> {
    return this.http.send({
      ...callerFields(caller),
      method: 'GET',
      path: `/v1/markets/${segment(slug)}/book`,
      budget: RETAIL_BUDGETS.marketData,
    });
  }
}
