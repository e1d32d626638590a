import { Injectable } from '@nestjs/common';
import { type BudgetedReply, ROUTE_BUDGETS } from '@lib/ratelimit';

import { RetailHttpClient } from '../client/retail-http.client.js';
import type { ActivitiesQuery, PositionsQuery } from '../schemas/query.schema.js';
import { type RetailCaller, callerFields, segment } from './retail-caller.js';

/** Account and market reads of the retail surface (spec 4.2, 4.3; queries from upstream-facts). */
@Injectable()
export class RetailPortfolio {
  constructor(private readonly http: RetailHttpClient) {}

  positions(caller: RetailCaller, query: PositionsQuery): Promise<BudgetedReply> {
    return this.http.send({ ...callerFields(caller), method: 'GET', path: '/v1/portfolio/positions', query, budget: ROUTE_BUDGETS.retail.positions });
  }

  activities(caller: RetailCaller, query: ActivitiesQuery): Promise<BudgetedReply> {
    return this.http.send({ ...callerFields(caller), method: 'GET', path: '/v1/portfolio/activities', query, budget: ROUTE_BUDGETS.retail.activities });
  }

  balances(caller: RetailCaller): Promise<BudgetedReply> {
    return this.http.send({ ...callerFields(caller), method: 'GET', path: '/v1/account/balances', budget: ROUTE_BUDGETS.retail.balances });
  }

  bbo(caller: RetailCaller, slug: string): Promise<BudgetedReply> {
    return this.http.send({ ...callerFields(caller), method: 'GET', path: `/v1/markets/${segment(slug)}/bbo`, budget: ROUTE_BUDGETS.retail.marketData });
  }

  book(caller: RetailCaller, slug: string): Promise<BudgetedReply> {
    return this.http.send({ ...callerFields(caller), method: 'GET', path: `/v1/markets/${segment(slug)}/book`, budget: ROUTE_BUDGETS.retail.marketData });
  }
}
