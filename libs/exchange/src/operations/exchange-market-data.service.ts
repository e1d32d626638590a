import { Injectable } from '@nestjs/common';
import { NotFoundError, pathSegment } from '@lib/core';
import { type BudgetedReply, ROUTE_BUDGETS } from '@lib/ratelimit';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import type { OrderBookQuery } from '../schemas/order-book.schema.js';
import type { CallerContext } from './caller-context.js';
import { InstrumentDirectory } from './instrument-directory.service.js';

/** Order-book snapshots over REST (spec 4.1 /v1/orderbook/*); streaming is the gRPC client's. */
@Injectable()
export class ExchangeMarketData {
  constructor(
    private readonly exchange: ExchangeHttpClient,
    private readonly directory: InstrumentDirectory,
  ) {}

  async orderBook(caller: CallerContext, symbol: string, query: OrderBookQuery): Promise<BudgetedReply> {
    await this.listed(symbol);
    return this.exchange.send({
      ...caller,
      method: 'GET',
      path: `/v1/orderbook/${pathSegment(symbol, 'params.symbol')}`,
      query: { depth: query.depth },
      budget: ROUTE_BUDGETS.exchange.orderBook,
    });
  }

  async bbo(caller: CallerContext, symbol: string): Promise<BudgetedReply> {
    await this.listed(symbol);
    return this.exchange.send({ ...caller, method: 'GET', path: `/v1/orderbook/${pathSegment(symbol, 'params.symbol')}/bbo`, budget: ROUTE_BUDGETS.exchange.bbo });
  }

  /** A symbol the exchange does not list costs no book budget: 404 here (the exchange's own answer to it). */
  private async listed(symbol: string): Promise<void> {
    if ((await this.directory.lists(symbol)) === false) throw new NotFoundError(`The exchange lists no instrument ${symbol.slice(0, 100)}.`);
  }
}
