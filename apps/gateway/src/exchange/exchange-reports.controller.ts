import { Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  type AccountCallerContext,
  ExchangeReports,
  type JsonObject,
  OrderSearchRequestSchema,
  OrderSearchResponseSchema,
  type OrderSearchRequest,
  TradeSearchRequestSchema,
  TradeStatsRequestSchema,
  TradeStatsResponseSchema,
  type TradeStatsRequest,
} from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { ApiParticipantHeader } from '../common/accounts.decorators.js';
import { RequireScopes } from '../common/auth.decorators.js';
import { relay } from '../common/relay.js';
import { ZodBody, openApiSchemaOf } from '../common/zod-params.js';
import { AccountCaller } from './exchange-caller.decorators.js';

/** Reports (spec 4.1 /v1/report/*), account-scoped (spec 5.1.4). */
@ApiTags('exchange reports')
@ApiBearerAuth()
@ApiParticipantHeader()
@Controller('exchange/v1/report')
export class ExchangeReportsController {
  constructor(private readonly reports: ExchangeReports) {}

  @Post('orders/search')
  @HttpCode(200)
  @RequireScopes('read:reports')
  @ApiOkResponse({ schema: openApiSchemaOf(OrderSearchResponseSchema) })
  async searchOrders(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ZodBody(OrderSearchRequestSchema) body: OrderSearchRequest) {
    relay(res, await this.reports.searchOrders(caller, body));
  }

  /** Request and records not shown (spec 2.8): any JSON object, passed through. */
  @Post('trades/search')
  @HttpCode(200)
  @RequireScopes('read:reports')
  async searchTrades(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ZodBody(TradeSearchRequestSchema) body: JsonObject) {
    relay(res, await this.reports.searchTrades(caller, body));
  }

  /** Scope not in the spec table: read:reports ("order/trade/execution search") is the closest documented scope. */
  @Post('trades/stats')
  @HttpCode(200)
  @RequireScopes('read:reports')
  @ApiOkResponse({ schema: openApiSchemaOf(TradeStatsResponseSchema) })
  async tradeStats(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ZodBody(TradeStatsRequestSchema) body: TradeStatsRequest) {
    relay(res, await this.reports.tradeStats(caller, body));
  }
}
