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
import { CurrentClient, RequireScopes } from '../common/auth.decorators.js';
import type { AuthenticatedClient } from '../common/authenticated-client.js';
import { relay } from '../common/relay.js';
import { openApiSchemaOf } from '../common/zod-params.js';
import { AccountCaller } from './exchange-caller.decorators.js';
import { ExchangeBody } from './identity/bound-body.decorator.js';
import type { BoundBody } from './identity/identity-binder.js';
import { OwnedOrders } from './identity/owned-orders.service.js';
import { OrderRisk } from '../risk/order-risk.service.js';

/** Order entry (spec 4.1 /v1/trading/*), account-scoped; upstream answers pass through unchanged. */
@ApiTags('exchange trading')
@ApiBearerAuth()
@ApiParticipantHeader()
@Controller('exchange/v1/trading')
export class ExchangeTradingController {
  constructor(
    private readonly trading: ExchangeTrading,
    private readonly owned: OwnedOrders,
    private readonly risk: OrderRisk,
  ) {}

  /** A timeout is a 504 carrying the clordId (one is assigned when the order has none); the insert is never resent. */
  @Post('orders')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(InsertOrderResponseSchema) })
  async insert(@Res() res: FastifyReply, @CurrentClient() client: AuthenticatedClient, @AccountCaller() caller: AccountCallerContext, @ExchangeBody(OrderRequestSchema) bound: BoundBody<OrderRequest>) {
    relay(res, await this.risk.exchangeInsert(client, caller, bound.body, (order) => this.trading.insertOrder(caller, order)));
  }

  /** What-if: every gateway check an insert would meet (trading states, limits, field policing), nothing sent; 200 with the order as it would be sent, or the refusal. */
  @Post('orders/check')
  @HttpCode(200)
  @RequireScopes('write:orders')
  async check(@CurrentClient() client: AuthenticatedClient, @AccountCaller() caller: AccountCallerContext, @ExchangeBody(OrderRequestSchema) bound: BoundBody<OrderRequest>) {
    return { accepted: true, order: await this.risk.exchangeCheck(client, caller, bound.body) };
  }

  /** Scope not in the spec table: read:orders ("view open orders, preview orders") is the closest documented scope. */
  @Post('orders/preview')
  @HttpCode(200)
  @RequireScopes('read:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(PreviewOrderResponseSchema) })
  async preview(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ExchangeBody(PreviewOrderRequestSchema) bound: BoundBody<PreviewOrderRequest>) {
    relay(res, await this.trading.previewOrder(caller, bound.body));
  }

  /** Scope not in the spec table: write:orders ("create and cancel orders") is the closest documented scope. More than 20 orders: 413. */
  @Post('orders/list')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(BatchInsertResponseSchema) })
  async insertBatch(@Res() res: FastifyReply, @CurrentClient() client: AuthenticatedClient, @AccountCaller() caller: AccountCallerContext, @ExchangeBody(BatchInsertRequestSchema, { batch: true }) bound: BoundBody<BatchInsertRequest>) {
    relay(res, await this.risk.exchangeBatch(client, caller, bound.body, (batch) => this.trading.insertBatch(caller, batch)));
  }

  /** Scope not in the spec table: write:orders is the closest documented scope. More than 20 replaces: 413. */
  @Post('orders/replace/list')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(BatchReplaceResponseSchema) })
  async replaceBatch(@Res() res: FastifyReply, @CurrentClient() client: AuthenticatedClient, @AccountCaller() caller: AccountCallerContext, @ExchangeBody(BatchReplaceRequestSchema, { batch: true }) bound: BoundBody<BatchReplaceRequest>) {
    // Risk first: it reads only the body, while confirming ownership reads the open orders upstream.
    const admitted = await this.risk.exchangeReplace(client, bound.body);
    relay(res, await this.trading.replaceBatch(caller, await this.owned.confirmed(caller, { ...bound, body: admitted })));
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
  async cancel(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext, @ExchangeBody(CancelOrderRequestSchema) bound: BoundBody<CancelOrderRequest>) {
    const reply = await this.trading.cancelOrder(caller, await this.owned.confirmed(caller, bound));
    relay(res, reply);
    await this.risk.cancelled(bound.body.orderId);
  }
}
