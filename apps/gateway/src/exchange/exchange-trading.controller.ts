import { Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  type AccountCallerContext,
  BatchInsertRequestSchema,
  BatchInsertResponseSchema,
  type BatchInsertRequest,
  BatchReplaceRequestSchema,
  BatchReplaceResponseSchema,
  type BatchReplaceRequest,
  CancelOrderRequestSchema,
  type CancelOrderRequest,
  ExchangeTrading,
  InsertOrderResponseSchema,
  OpenOrdersResponseSchema,
  OrderRequestSchema,
  type OrderRequest,
  PreviewOrderRequestSchema,
  PreviewOrderResponseSchema,
  type PreviewOrderRequest,
} from '@lib/exchange';
import type { FastifyReply } from 'fastify';

import { ApiParticipantHeader } from '../common/accounts.decorators.js';
import { RequireScopes } from '../common/auth.decorators.js';
import { relay } from '../common/relay.js';
import { ZodBody, openApiSchemaOf } from '../common/zod-params.js';
import { BatchBody } from './batch-body.decorator.js';
import { AccountCaller } from './exchange-caller.decorators.js';

/** Order entry (spec 4.1 /v1/trading/*), account-scoped; upstream answers pass through unchanged. */
@ApiTags('exchange trading')
@ApiBearerAuth()
@ApiParticipantHeader()
@Controller('exchange/v1/trading')
export class ExchangeTradingController {
  constructor(private readonly trading: ExchangeTrading) {}

  /** A timeout is a 504 carrying the clordId (one is assigned when the order has none); the insert is never resent. */
  @Post('orders')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(InsertOrderResponseSchema) })
  async insert(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ZodBody(OrderRequestSchema) body: OrderRequest) {
    relay(res, await this.trading.insertOrder(caller, body));
  }

  /** Scope not in the spec table: read:orders ("view open orders, preview orders") is the closest documented scope. */
  @Post('orders/preview')
  @HttpCode(200)
  @RequireScopes('read:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(PreviewOrderResponseSchema) })
  async preview(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ZodBody(PreviewOrderRequestSchema) body: PreviewOrderRequest) {
    relay(res, await this.trading.previewOrder(caller, body));
  }

  /** Scope not in the spec table: write:orders ("create and cancel orders") is the closest documented scope. More than 20 orders: 413. */
  @Post('orders/list')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(BatchInsertResponseSchema) })
  async insertBatch(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @BatchBody(BatchInsertRequestSchema) body: BatchInsertRequest) {
    relay(res, await this.trading.insertBatch(caller, body));
  }

  /** Scope not in the spec table: write:orders is the closest documented scope. More than 20 replaces: 413. */
  @Post('orders/replace/list')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(BatchReplaceResponseSchema) })
  async replaceBatch(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @BatchBody(BatchReplaceRequestSchema) body: BatchReplaceRequest) {
    relay(res, await this.trading.replaceBatch(caller, body));
  }

  /** Spec 4.1 records both spellings of this route; both serve the same snapshot. */
  @Get(['orders/open', 'open-orders'])
  @RequireScopes('read:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(OpenOrdersResponseSchema) })
  async openOrders(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext) {
    relay(res, await this.trading.openOrders(caller));
  }

  @Post('orders/cancel')
  @HttpCode(200)
  @RequireScopes('write:orders')
  async cancel(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ZodBody(CancelOrderRequestSchema) body: CancelOrderRequest) {
    relay(res, await this.trading.cancelOrder(caller, body));
  }
}
