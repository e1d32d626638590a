import { createHash } from 'node:crypto';

import { Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
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
  withClordId,
} from '@lib/exchange';
import type { BudgetedReply } from '@lib/ratelimit';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { ApiParticipantHeader } from '../common/decorators/accounts.decorators.js';
import { CancelRoute, CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { relay } from '../common/http/relay.js';
import { openApiSchemaOf } from '../common/pipes/zod-params.js';
import { AccountCaller } from './exchange-caller.decorators.js';
import { actingFor } from './identity/acting-participant.js';
import { ExchangeBody } from './identity/bound-body.decorator.js';
import type { BoundBody } from './identity/identity-binder.js';
import { OwnedOrders } from './identity/owned-orders.service.js';
import { sendAnswer } from '../orders/order-answers.js';
import { OrderSafety } from '../orders/order-safety.service.js';
import { SharedCancels, cancelKey, sameCancel } from '../orders/shared-cancels.js';
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
    private readonly safety: OrderSafety,
    private readonly risk: OrderRisk,
  ) {}

  /** The exchange cancels under way, by team, participant and order: one send per order at a time, duplicates share it. */
  private readonly cancels = new SharedCancels<BudgetedReply>();

  /**
   * Idempotent (issue 27): the Idempotency-Key, else the order's own clordId, is the key, so a resend
   * never reaches the exchange twice. A lost answer (timeout, reset, 5xx) is a 202 PENDING carrying the
   * clordId (one is assigned when the order has none), resolved from the exchange; never resent.
   * The brakes' stateless checks (throttle, trading states, limits, field policing, price band, self-trade)
   * run first: a refusal claims no key and writes no journal. The counted step (open-order slots) runs
   * inside the send, after the idempotency claim and the journal's intent, before any budget.
   */
  @Post('orders')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(InsertOrderResponseSchema) })
  async insert(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @CurrentClient() client: AuthenticatedClient,
    @AccountCaller() chosen: AccountCallerContext,
    @ExchangeBody(OrderRequestSchema) bound: BoundBody<OrderRequest>,
  ) {
    const caller = actingFor(chosen, [bound.body.account], () => 'body.account');
    const order = withClordId(bound.body);
    const implicitKey = bound.body.clordId ? `clordId:${caller.participant}:${bound.body.clordId}` : undefined;
    const admit = () => this.risk.exchangeInsert(client, caller, order);
    const send = (admitted: Awaited<ReturnType<typeof admit>>) =>
      admitted.send((checked) => this.trading.insertOrder(caller, checked));
    sendAnswer(
      res,
      await this.safety.run({
        operation: 'exchange.insert',
        request: req,
        team: caller.team,
        account: caller.participant,
        body: bound.body,
        clordIds: [order.clordId!],
        implicitKey,
        ownClordIds: bound.body.clordId ? [bound.body.clordId] : [],
        admit,
        send,
      }),
    );
  }

  /** What-if: every gateway check an insert would meet (trading states, limits, field policing), nothing sent; 200 with the order as it would be sent, or the refusal. */
  @Post('orders/check')
  @HttpCode(200)
  @RequireScopes('write:orders')
  async check(
    @CurrentClient() client: AuthenticatedClient,
    @AccountCaller() chosen: AccountCallerContext,
    @ExchangeBody(OrderRequestSchema) bound: BoundBody<OrderRequest>,
  ) {
    const caller = actingFor(chosen, [bound.body.account], () => 'body.account');
    return { accepted: true, order: await this.risk.exchangeCheck(client, caller, bound.body) };
  }

  /** Scope not in the spec table: read:orders ("view open orders, preview orders") is the closest documented scope. */
  @Post('orders/preview')
  @HttpCode(200)
  @RequireScopes('read:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(PreviewOrderResponseSchema) })
  async preview(
    @Res() res: FastifyReply,
    @AccountCaller() caller: AccountCallerContext,
    @ExchangeBody(PreviewOrderRequestSchema) bound: BoundBody<PreviewOrderRequest>,
  ) {
    relay(res, await this.trading.previewOrder(caller, bound.body));
  }

  /** Scope not in the spec table: write:orders ("create and cancel orders") is the closest documented scope. More than 20 orders: 413. */
  @Post('orders/list')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(BatchInsertResponseSchema) })
  async insertBatch(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @CurrentClient() client: AuthenticatedClient,
    @AccountCaller() chosen: AccountCallerContext,
    @ExchangeBody(BatchInsertRequestSchema, { batch: true }) bound: BoundBody<BatchInsertRequest>,
  ) {
    const caller = actingFor(
      chosen,
      bound.body.requests.map((order) => order.account),
      (i) => `body.requests.${i}.account`,
    );
    const requests = bound.body.requests.map(withClordId);
    const implicitKey = batchKeyOf(caller.participant, bound.body.requests);
    const admit = () => this.risk.exchangeBatch(client, caller, { ...bound.body, requests });
    const send = (admitted: Awaited<ReturnType<typeof admit>>) =>
      admitted.send((batch) => this.trading.insertBatch(caller, batch));
    sendAnswer(
      res,
      await this.safety.run({
        operation: 'exchange.batchInsert',
        request: req,
        team: caller.team,
        account: caller.participant,
        body: bound.body,
        clordIds: requests.map((order) => order.clordId!),
        implicitKey,
        ownClordIds: bound.body.requests.flatMap((order) => (order.clordId ? [order.clordId] : [])),
        admit,
        send,
      }),
    );
  }

  /** Scope not in the spec table: write:orders is the closest documented scope. More than 20 replaces: 413. */
  @Post('orders/replace/list')
  @HttpCode(200)
  @RequireScopes('write:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(BatchReplaceResponseSchema) })
  async replaceBatch(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @CurrentClient() client: AuthenticatedClient,
    @AccountCaller() caller: AccountCallerContext,
    @ExchangeBody(BatchReplaceRequestSchema, { batch: true }) bound: BoundBody<BatchReplaceRequest>,
  ) {
    // Risk first: it reads the body and what the gateway knows of the orders (no upstream call). Confirming ownership reads the open orders upstream, so it runs inside the send: a replay does not repeat it.
    const admit = () => this.risk.exchangeReplace(client, caller, bound.body);
    const orderIds = bound.body.requests.map((replace) => replace.orderId);
    const send = (admitted: Awaited<ReturnType<typeof admit>>) =>
      admitted.send(async (checked) =>
        this.trading.replaceBatch(caller, await this.owned.confirmed(caller, { ...bound, body: checked })),
      );
    sendAnswer(
      res,
      await this.safety.run({
        operation: 'exchange.batchReplace',
        request: req,
        team: caller.team,
        account: caller.participant,
        body: bound.body,
        clordIds: [],
        orderIds,
        admit,
        send,
      }),
    );
  }

  /** Spec 4.1 records both spellings of this route; both serve the same snapshot. */
  @Get(['orders/open', 'open-orders'])
  @RequireScopes('read:orders')
  @ApiOkResponse({ schema: openApiSchemaOf(OpenOrdersResponseSchema) })
  async openOrders(@Res() res: FastifyReply, @AccountCaller() caller: AccountCallerContext) {
    relay(res, await this.trading.openOrders(caller));
  }

  @Post('orders/cancel')
  @CancelRoute()
  @HttpCode(200)
  @RequireScopes('write:orders')
  async cancel(
    @Res() res: FastifyReply,
    @Req() req: FastifyRequest,
    @AccountCaller() caller: AccountCallerContext,
    @ExchangeBody(CancelOrderRequestSchema) bound: BoundBody<CancelOrderRequest>,
  ) {
    // Ownership is confirmed inside the send, as a replace's is: a retry of a finished cancel under its key
    // is that cancel's replay (before, the order no longer working, the retry was refused 404).
    // Confirmed by each call; the upstream cancel of one order is shared (SharedCancels): before, each of
    // 300 concurrent cancels of one working order was sent, holding over 100 of the exchange pool's 64 connections.
    const { orderId, clordId } = bound.body;
    const order = cancelKey(caller.team, caller.participant, orderId !== undefined ? `o:${orderId}` : `c:${clordId}`);
    const send = async () => {
      const body = await this.owned.confirmed(caller, bound, true);
      return this.cancels.run(order, sameCancel(body, caller.preferWaitMs), async () => {
        const reply = await this.trading.cancelOrder(caller, body);
        await this.risk.cancelled(orderId);
        return reply;
      });
    };
    sendAnswer(
      res,
      await this.safety.run({
        operation: 'exchange.cancel',
        request: req,
        team: caller.team,
        account: caller.participant,
        body: bound.body,
        clordIds: bound.body.clordId ? [bound.body.clordId] : [],
        orderIds: bound.body.orderId ? [bound.body.orderId] : [],
        send,
      }),
    );
  }
}

/**
 * A batch insert's key when the client sent none and every order carries its own clordId: its clordIds,
 * in order (a digest, so the key stays short), as a single insert's clordId is its key. The exchange takes
 * a finished order's clordId again, so a resent batch (its answer lost) would make each such order twice.
 */
function batchKeyOf(participant: string, orders: readonly OrderRequest[]): string | undefined {
  const clordIds = orders.map((order) => order.clordId);
  if (clordIds.some((clordId) => !clordId)) return undefined;
  return `clordIds:${participant}:${createHash('sha256').update(JSON.stringify(clordIds)).digest('hex')}`;
}
