import { Injectable } from '@nestjs/common';
import { pathSegment } from '@lib/core';
import { type BudgetedReply, ROUTE_BUDGETS } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type { OrderBookQuery } from '../schemas/order-book.schema.js';
import type { CallerContext } from './caller-context.js';

/** Order-book snapshots over REST (spec 4.1 /v1/orderbook/*); streaming is the gRPC client's. */
@Injectable()
export class ExchangeMarketData {
  constructor(private readonly exchange: ExchangeHttpClient) {}

  orderBook(caller: CallerContext, symbol: string, query: OrderBookQuery): Promise<BudgetedReply> {
    return this.exchange.send({
      ...caller,
      method: 'GET',
      path: `/v1/orderbook/${pathSegment(symbol, 'params.symbol')}`,
      query: { depth: query.depth },
      budget: ROUTE_BUDGETS.exchange.orderBook,
    });
  }

  bbo(caller: CallerContext, symbol: string): Promise<BudgetedReply> {
    return this.exchange.send({ ...caller, method: 'GET', path: `/v1/orderbook/${pathSegment(symbol, 'params.symbol')}/bbo`, budget: ROUTE_BUDGETS.exchange.bbo });
  }
}
