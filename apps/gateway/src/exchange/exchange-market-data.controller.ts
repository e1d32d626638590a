import { Controller, Get, Res } from '@nestjs/common';
import { Clock } from '@lib/core';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  type BookReply,
  type CallerContext,
  ExchangeMarketData,
  OrderBookQuerySchema,
  OrderBookSnapshotSchema,
  type OrderBookQuery,
  SymbolParamsSchema,
} from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { RequireScopes } from '../common/decorators/auth.decorators.js';
import { relay } from '../common/http/relay.js';
import { ZodParams, ZodQuery, openApiSchemaOf } from '../common/pipes/zod-params.js';
import { MarketCaller } from './exchange-caller.decorators.js';

const BOOK_HEADERS = {
  'X-Book-Source': {
    description:
      '`stream`: the book the gateway keeps from the market-data stream; `upstream`: the exchange REST route',
  },
  'Last-Modified': { description: "stream answers: the book's transact time" },
  Age: { description: 'stream answers: seconds since the gateway received this book state' },
};

/**
 * Order-book snapshots (spec 4.1 /v1/orderbook/*); not account-scoped. Served from the stream-kept
 * book whenever there is one (with `Last-Modified` from its transact time and `Age`), else relayed.
 */
@ApiTags('exchange market data')
@ApiBearerAuth()
@Controller('exchange/v1/orderbook')
export class ExchangeMarketDataController {
  constructor(
    private readonly marketData: ExchangeMarketData,
    private readonly clock: Clock,
  ) {}

  /** Depth 1-10, default 3 (spec 4.1, 8). */
  @Get(':symbol')
  @RequireScopes('read:l2marketdata')
  @ApiOkResponse({ schema: openApiSchemaOf(OrderBookSnapshotSchema), headers: BOOK_HEADERS })
  async orderBook(
    @Res() res: FastifyReply,
    @MarketCaller() caller: CallerContext,
    @ZodParams(SymbolParamsSchema) { symbol }: { symbol: string },
    @ZodQuery(OrderBookQuerySchema) query: OrderBookQuery,
  ) {
    answer(res, await this.marketData.orderBook(caller, symbol, query), this.clock.now());
  }

  /** Record not shown upstream: relayed, or the same spelling built from the stream. */
  @Get(':symbol/bbo')
  @RequireScopes('read:marketdata')
  @ApiOkResponse({ headers: BOOK_HEADERS })
  async bbo(
    @Res() res: FastifyReply,
    @MarketCaller() caller: CallerContext,
    @ZodParams(SymbolParamsSchema) { symbol }: { symbol: string },
  ) {
    answer(res, await this.marketData.bbo(caller, symbol), this.clock.now());
  }
}

/** `now`: the steady clock's reading, as the streamed book's receivedAt is. */
function answer(res: FastifyReply, book: BookReply, now: number): void {
  res.header('x-book-source', book.source);
  if (book.source === 'upstream') return relay(res, book.reply);
  res
    .status(200)
    .header('last-modified', new Date(book.modifiedAt).toUTCString())
    .header('age', String(Math.max(0, Math.floor((now - book.receivedAt) / 1000))))
    .header('content-type', 'application/json; charset=utf-8')
    .send(book.body);
}
