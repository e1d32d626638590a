import { Get, HttpCode, Post, Res } from '@nestjs/common';
import {
  CancelAllOrdersSchema,
  CancelOrderSchema,
  ClosePositionSchema,
  CreateOrderSchema,
  ModifyOrderSchema,
  NoQuerySchema,
  OpenOrdersQuerySchema,
  OrderIdParamsSchema,
  PreviewOrderSchema,
  RetailOrders,
  type CancelAllOrders,
  type CancelOrder,
  type ClosePosition,
  type CreateOrder,
  type ModifyOrder,
  type OpenOrdersQuery,
  type PreviewOrder,
  type RetailCaller,
} from '@lib/retail';
import type { FastifyReply } from 'fastify';

import { CurrentClient, RequireScopes } from '../common/auth.decorators.js';
import type { AuthenticatedClient } from '../common/authenticated-client.js';
import { relay } from '../common/relay.js';
import { ZodBody, ZodParams, ZodQuery } from '../common/zod-params.js';
import { OrderRisk } from '../risk/order-risk.service.js';
import { Caller, RetailController } from './retail.decorators.js';

/** Retail order entry and order queries, at the upstream paths under /retail (spec 4.2, 4.3). */
@RetailController()
export class RetailOrdersController {
  constructor(
    private readonly orders: RetailOrders,
    private readonly risk: OrderRisk,
  ) {}

  /** Never resent after a timeout (504): the order may exist; list open orders to find out. */
  @Post('orders')
  @RequireScopes('write:orders')
  async create(@Res() res: FastifyReply, @CurrentClient() client: AuthenticatedClient, @Caller() caller: RetailCaller, @ZodBody(CreateOrderSchema) body: CreateOrder) {
    relay(res, await this.orders.create(caller, await this.risk.retailCreate(client, body)));
  }

  /** What-if: every gateway check a create would meet, nothing sent; 200 with the order as it would be sent, or the refusal. */
  @Post('order/check')
  @HttpCode(200)
  @RequireScopes('write:orders')
  async check(@CurrentClient() client: AuthenticatedClient, @Caller() _caller: RetailCaller, @ZodBody(CreateOrderSchema) body: CreateOrder) {
    return { accepted: true, order: await this.risk.retailCreate(client, body) };
  }

  @Post('order/preview')
  @RequireScopes('read:orders')
  async preview(@Res() res: FastifyReply, @Caller() caller: RetailCaller, @ZodBody(PreviewOrderSchema) body: PreviewOrder) {
    relay(res, await this.orders.preview(caller, body));
  }

  @Post('order/close-position')
  @RequireScopes('write:orders')
  async closePosition(@Res() res: FastifyReply, @CurrentClient() client: AuthenticatedClient, @Caller() caller: RetailCaller, @ZodBody(ClosePositionSchema) body: ClosePosition) {
    relay(res, await this.orders.closePosition(caller, await this.risk.retailClose(client, body)));
  }

  @Post('order/:id/cancel')
  @RequireScopes('write:orders')
  async cancel(@Res() res: FastifyReply, @Caller() caller: RetailCaller, @ZodParams(OrderIdParamsSchema) { id }: { id: string }, @ZodBody(CancelOrderSchema) body: CancelOrder) {
    relay(res, await this.orders.cancel(caller, id, body));
  }

  @Post('order/:id/modify')
  @RequireScopes('write:orders')
  async modify(
    @Res() res: FastifyReply,
    @CurrentClient() client: AuthenticatedClient,
    @Caller() caller: RetailCaller,
    @ZodParams(OrderIdParamsSchema) { id }: { id: string },
    @ZodBody(ModifyOrderSchema) body: ModifyOrder,
  ) {
    await this.risk.retailModify(client, body);
    relay(res, await this.orders.modify(caller, id, body));
  }

  @Post('orders/open/cancel')
  @RequireScopes('write:orders')
  async cancelAll(@Res() res: FastifyReply, @Caller() caller: RetailCaller, @ZodBody(CancelAllOrdersSchema) body: CancelAllOrders) {
    relay(res, await this.orders.cancelAll(caller, body));
  }

  @Get('orders/open')
  @RequireScopes('read:orders')
  async open(@Res() res: FastifyReply, @Caller() caller: RetailCaller, @ZodQuery(OpenOrdersQuerySchema) query: OpenOrdersQuery) {
    relay(res, await this.orders.open(caller, query));
  }

  @Get('order/:id')
  @RequireScopes('read:orders')
  async get(@Res() res: FastifyReply, @Caller() caller: RetailCaller, @ZodParams(OrderIdParamsSchema) { id }: { id: string }, @ZodQuery(NoQuerySchema) _query: object) {
    relay(res, await this.orders.get(caller, id));
  }
}
