import { Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  type AccountCallerContext,
  ExchangeReports,
  OrderSearchRequestSchema,
  OrderSearchResponseSchema,
  type OrderSearchRequest,
  TradeSearchRequestSchema,
  type TradeSearchRequest,
  TradeStatsRequestSchema,
  TradeStatsResponseSchema,
  type TradeStatsRequest,
} from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { feedViewerOf } from '../common/auth/feed-scope.js';
import { ApiParticipantHeader } from '../common/decorators/accounts.decorators.js';
import { CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import { relay } from '../common/http/relay.js';
import { openApiSchemaOf } from '../common/pipes/zod-params.js';
import { AccountCaller } from './exchange-caller.decorators.js';
import { ExchangeBody } from './identity/bound-body.decorator.js';
import type { BoundBody } from './identity/identity-binder.js';

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
  async searchOrders(
    @Res() res: FastifyReply,
    @AccountCaller() caller: AccountCallerContext,
    @ExchangeBody(OrderSearchRequestSchema) bound: BoundBody<OrderSearchRequest>,
  ) {
    relay(res, await this.reports.searchOrders(caller, bound.body));
  }

  /**
   * Request and records not shown (spec 2.8): the order search's filters that apply to trades. The other
   * side of a trade with another team's participant is answered as the `exchange.trades` feed shows it.
   */
  @Post('trades/search')
  @HttpCode(200)
  @RequireScopes('read:reports')
  async searchTrades(
    @Res() res: FastifyReply,
    @AccountCaller() caller: AccountCallerContext,
    @CurrentClient() client: AuthenticatedClient,
    @ExchangeBody(TradeSearchRequestSchema) bound: BoundBody<TradeSearchRequest>,
  ) {
    relay(res, await this.reports.searchTrades(caller, bound.body, feedViewerOf(client)));
  }

  /** Scope not in the spec table: read:reports ("order/trade/execution search") is the closest documented scope. */
  @Post('trades/stats')
  @HttpCode(200)
  @RequireScopes('read:reports')
  @ApiOkResponse({ schema: openApiSchemaOf(TradeStatsResponseSchema) })
  async tradeStats(
    @Res() res: FastifyReply,
    @AccountCaller() caller: AccountCallerContext,
    @ExchangeBody(TradeStatsRequestSchema) bound: BoundBody<TradeStatsRequest>,
  ) {
    relay(res, await this.reports.tradeStats(caller, bound.body));
  }
}
