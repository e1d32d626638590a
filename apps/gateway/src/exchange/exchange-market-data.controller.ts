import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { type CallerContext, ExchangeMarketData, OrderBookQuerySchema, OrderBookSnapshotSchema, type OrderBookQuery, SymbolParamsSchema } from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { RequireScopes } from '../common/auth.decorators.js';
import { relay } from '../common/relay.js';
import { ZodParams, ZodQuery, openApiSchemaOf } from '../common/zod-params.js';
import { MarketCaller } from './exchange-caller.decorators.js';

/** Order-book snapshots (spec 4.1 /v1/orderbook/*); not account-scoped. */
@ApiTags('exchange market data')
@ApiBearerAuth()
@Controller('exchange/v1/orderbook')
export class ExchangeMarketDataController {
  constructor(private readonly marketData: ExchangeMarketData) {}

  /** Depth 1-10, default 3 (spec 4.1, 8). */
  @Get(':symbol')
  @RequireScopes('read:l2marketdata')
  @ApiOkResponse({ schema: openApiSchemaOf(OrderBookSnapshotSchema) })
  async orderBook(@Res() res: FastifyReply, @MarketCaller() caller: CallerContext, @ZodParams(SymbolParamsSchema) { symbol }: { symbol: string }, @ZodQuery(OrderBookQuerySchema) query: OrderBookQuery) {
    relay(res, await this.marketData.orderBook(caller, symbol, query));
  }

  /** Record not shown: passed through. */
  @Get(':symbol/bbo')
  @RequireScopes('read:marketdata')
  async bbo(@Res() res: FastifyReply, @MarketCaller() caller: CallerContext, @ZodParams(SymbolParamsSchema) { symbol }: { symbol: string }) {
    relay(res, await this.marketData.bbo(caller, symbol));
  }
}
