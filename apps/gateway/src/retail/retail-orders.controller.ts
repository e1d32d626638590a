import { Get, HttpCode, Post, Req, Res } from '@nestjs/common';
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
import type { BudgetedReply } from '@lib/ratelimit';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { CancelRoute, CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { relay } from '../common/http/relay.js';
import { ZodBody, ZodParams, ZodQuery } from '../common/pipes/zod-params.js';
import { sendAnswer } from '../orders/order-answers.js';
import type { OrderCall, OrderOperation } from '../orders/order-call.js';
import { OrderSafety } from '../orders/order-safety.service.js';
import { SharedCancels, cancelKey, sameCancel } from '../orders/shared-cancels.js';
import { OrderRisk } from '../risk/order-risk.service.js';
import { Caller, RetailController } from './retail.decorators.js';

/** Retail order entry and order queries, at the upstream paths under /retail (spec 4.2, 4.3). */
@RetailController()
export class RetailOrdersController {
  constructor(
    private readonly orders: RetailOrders,
    private readonly safety: OrderSafety,
    private readonly risk: OrderRisk,
  ) {}

  /** The retail cancels under way, by team, account and order: one send per order at a time, duplicates share it (SharedCancels). */
  private readonly cancels = new SharedCancels<BudgetedReply>();

  /** Order entry through the order path (Idempotency-Key, journal written ahead): see OrderSafety. The risk checks run before it: a refusal claims no key. */
  private async enter<A>(
    res: FastifyReply,
    req: FastifyRequest,
    caller: RetailCaller,
    operation: OrderOperation,
    body: unknown,
    orderId: string | undefined,
    steps: Pick<OrderCall<A>, 'admit' | 'send' | 'sent'>,
  ) {
    sendAnswer(
      res,
      await this.safety.run({
        operation,
        request: req,
        team: caller.team,
        account: caller.account,
        body: orderId === undefined ? body : { orderId, body },
        clordIds: [],
        orderIds: orderId === undefined ? [] : [orderId],
        ...steps,
      }),
    );
  }

  /** Never resent: a lost answer is 202 PENDING under its key, resolved from the account's open orders (OrderSafety). */
  @Post('orders')
  @RequireScopes('write:orders')
  async create(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @CurrentClient() client: AuthenticatedClient,
    @Caller() caller: RetailCaller,
    @ZodBody(CreateOrderSchema) body: CreateOrder,
  ) {
    await this.enter(res, req, caller, 'retail.create', body, undefined, {
      admit: () => this.risk.retailCreate(client, caller.account, body),
      sent: (admitted) => admitted.request,
      send: (admitted) => admitted.send((checked) => this.orders.create(caller, checked)),
    });
  }

  /** What-if: every gateway check a create would meet (trading states, limits, field policing), nothing sent. */
  @Post('order/check')
  @HttpCode(200)
  @RequireScopes('write:orders')
  async check(
    @CurrentClient() client: AuthenticatedClient,
    @Caller() caller: RetailCaller,
    @ZodBody(CreateOrderSchema) body: CreateOrder,
  ) {
    return { accepted: true, order: await this.risk.retailCheck(client, caller.account, body) };
  }

  @Post('order/preview')
  @RequireScopes('read:orders')
  async preview(
    @Res() res: FastifyReply,
    @Caller() caller: RetailCaller,
    @ZodBody(PreviewOrderSchema) body: PreviewOrder,
  ) {
    relay(res, await this.orders.preview(caller, body));
  }

  @Post('order/close-position')
  @RequireScopes('write:orders')
  async closePosition(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @CurrentClient() client: AuthenticatedClient,
    @Caller() caller: RetailCaller,
    @ZodBody(ClosePositionSchema) body: ClosePosition,
  ) {
    await this.enter(res, req, caller, 'retail.closePosition', body, undefined, {
      admit: () => this.risk.retailClose(client, caller.account, body),
      sent: (admitted) => admitted.request,
      send: (admitted) => admitted.send((checked) => this.orders.closePosition(caller, checked)),
    });
  }

  @Post('order/:id/cancel')
  @CancelRoute()
  @RequireScopes('write:orders')
  async cancel(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @Caller() caller: RetailCaller,
    @ZodParams(OrderIdParamsSchema) { id }: { id: string },
    @ZodBody(CancelOrderSchema) body: CancelOrder,
  ) {
    await this.enter(res, req, caller, 'retail.cancel', body, id, {
      send: () =>
        this.cancels.run(
          cancelKey(caller.team, caller.account, id),
          sameCancel(body, caller.preferWaitMs),
          async () => {
            const reply = await this.orders.cancel(caller, id, body);
            await this.risk.cancelled(id);
            return reply;
          },
        ),
    });
  }

  @Post('order/:id/modify')
  @RequireScopes('write:orders')
  async modify(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @CurrentClient() client: AuthenticatedClient,
    @Caller() caller: RetailCaller,
    @ZodParams(OrderIdParamsSchema) { id }: { id: string },
    @ZodBody(ModifyOrderSchema) body: ModifyOrder,
  ) {
    await this.enter(res, req, caller, 'retail.modify', body, id, {
      admit: () => this.risk.retailModify(client, caller.account, id, body),
      send: (admitted) => admitted.send((checked) => this.orders.modify(caller, id, checked)),
    });
  }

  @Post('orders/open/cancel')
  @CancelRoute()
  @RequireScopes('write:orders')
  async cancelAll(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @Caller() caller: RetailCaller,
    @ZodBody(CancelAllOrdersSchema) body: CancelAllOrders,
  ) {
    await this.enter(res, req, caller, 'retail.cancelAll', body, undefined, {
      send: async () => {
        const reply = await this.orders.cancelAll(caller, body);
        await this.risk.retailCancelledAll(reply.text);
        return reply;
      },
    });
  }

  @Get('orders/open')
  @RequireScopes('read:orders')
  async open(
    @Res() res: FastifyReply,
    @Caller() caller: RetailCaller,
    @ZodQuery(OpenOrdersQuerySchema) query: OpenOrdersQuery,
  ) {
    relay(res, await this.orders.open(caller, query));
  }

  @Get('order/:id')
  @RequireScopes('read:orders')
  async get(
    @Res() res: FastifyReply,
    @Caller() caller: RetailCaller,
    @ZodParams(OrderIdParamsSchema) { id }: { id: string },
    @ZodQuery(NoQuerySchema) _query: object,
  ) {
    relay(res, await this.orders.get(caller, id));
  }
}
