import { Injectable } from '@nestjs/common';
import { MetricsRegistry, NotFoundError, pathSegment } from '@lib/core';
import { type BudgetedReply } from '@lib/ratelimit';
import { Counter } from 'prom-client';

import { ExchangeHttpClient } from '../client/exchange-http.client.js';
import { bboRecord, orderBookRecord, timestampMs } from '../grpc/book-records.js';
import { MarketDataStreams } from '../grpc/market-data-streams.service.js';
import type { BookView } from '../grpc/streamed-book.js';
import type { OrderBookQuery } from '../schemas/order-book.schema.js';
import type { CallerContext } from './caller-context.js';
import { InstrumentDirectory } from './instrument-directory.service.js';
import { EXCHANGE_BUDGETS } from '../budget/exchange-budgets.js';

/** A book read answered from the market-data stream: the REST route's JSON, and the book's times. */
export interface StreamedBookReply {
  source: 'stream';
  body: string;
  /** When the book last changed (transact_time), epoch ms. */
  modifiedAt: number;
  /** When this instance received that state, epoch ms. */
  receivedAt: number;
}

export type BookReply = StreamedBookReply | { source: 'upstream'; reply: BudgetedReply };

type BookRoute = 'orderbook' | 'bbo';

/**
 * Order-book snapshots (spec 4.1 /v1/orderbook/*): from the book the market-data stream keeps when
 * one can be had (upstream-facts: books are meant to come from the stream; polling them is abuse),
 * over REST, spending the 12-a-minute budget, only when not.
 */
@Injectable()
export class ExchangeMarketData {
  private readonly reads: Counter<'route' | 'source'>;

  constructor(
    private readonly exchange: ExchangeHttpClient,
    private readonly streams: MarketDataStreams,
    private readonly directory: InstrumentDirectory,
    registry: MetricsRegistry,
  ) {
    this.reads = new Counter({
      name: 'gateway_exchange_book_reads_total',
      help: 'Order-book and BBO reads by route and by where the answer came from (stream or upstream REST)',
      labelNames: ['route', 'source'],
      registers: [registry],
    });
  }

  async orderBook(caller: CallerContext, symbol: string, query: OrderBookQuery): Promise<BookReply> {
    await this.listed(symbol);
    const book = await this.streams.read(symbol);
    if (book) return this.streamed('orderbook', book, JSON.stringify(orderBookRecord(book.update, query.depth)));
    const reply = await this.exchange.send({
      ...caller,
      method: 'GET',
      path: `/v1/orderbook/${pathSegment(symbol, 'params.symbol')}`,
      query: { depth: query.depth },
      budget: EXCHANGE_BUDGETS.orderBook,
    });
    return this.upstream('orderbook', reply);
  }

  async bbo(caller: CallerContext, symbol: string): Promise<BookReply> {
    await this.listed(symbol);
    const book = await this.streams.read(symbol);
    if (book) return this.streamed('bbo', book, JSON.stringify(bboRecord(book.update)));
    const reply = await this.exchange.send({
      ...caller,
      method: 'GET',
      path: `/v1/orderbook/${pathSegment(symbol, 'params.symbol')}/bbo`,
      budget: EXCHANGE_BUDGETS.bbo,
    });
    return this.upstream('bbo', reply);
  }

  /**
   * A symbol the exchange does not list costs no book budget and never reaches the shared market-data
   * stream (where the exchange would end it for every symbol): 404 here, the exchange's own answer.
   */
  private async listed(symbol: string): Promise<void> {
    if ((await this.directory.lists(symbol)) === false)
      throw new NotFoundError(`The exchange lists no instrument ${symbol.slice(0, 100)}.`);
  }

  private streamed(route: BookRoute, book: BookView, body: string): StreamedBookReply {
    this.reads.inc({ route, source: 'stream' });
    return { source: 'stream', body, modifiedAt: timestampMs(book.update.transactTime), receivedAt: book.receivedAt };
  }

  private upstream(route: BookRoute, reply: BudgetedReply): BookReply {
    this.reads.inc({ route, source: 'upstream' });
    return { source: 'upstream', reply };
  }
}
