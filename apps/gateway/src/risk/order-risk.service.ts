import { Inject, Injectable } from '@nestjs/common';
import { type ClientConfig, GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import { type AccountCallerContext, type BatchInsertRequest, type BatchReplaceRequest, ExchangeAccounts, type OrderRequest } from '@lib/exchange';
import type { BudgetedReply } from '@lib/ratelimit';
import type { ClosePosition, CreateOrder, ModifyOrder } from '@lib/retail';
import { z } from 'zod';

import type { AuthenticatedClient } from '../common/authenticated-client.js';
import { exchangeOrderTerms, exchangeReplaceTerms, retailCloseTerms, retailModifyTerms, retailOrderTerms } from './order-terms.js';
import { OpenOrders, type Reservation } from './open-orders.service.js';
import { OrderThrottle } from './order-throttle.service.js';
import { PriceBand } from './price-band.service.js';
import { SelfTradeGuard } from './self-trade.service.js';
import { notEntitled } from './risk.error.js';
import { type PositionOf, RiskGate } from './risk-gate.service.js';
import { RiskMetrics } from './risk.metrics.js';

const InsertAnswerSchema = z.looseObject({ orderId: z.string() });
const BatchAnswerSchema = z.looseObject({ responses: z.array(z.looseObject({ orderId: z.string().optional() })) });

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const PositionsSchema = z.looseObject({ positions: z.array(z.looseObject({ symbol: z.string(), netPosition: z.string() })).default([]) });

/**
 * The risk step of every order-entering route of both surfaces: field policing (entitlements, the
 * manual-order indicator stamped from what the client is), then the trading states and limits
 * (RiskGate). Each method answers the request as it may be sent, or throws the refusal.
 */
@Injectable()
export class OrderRisk {
  private readonly clients: ReadonlyMap<string, ClientConfig>;
  private readonly scale: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly gate: RiskGate,
    private readonly accounts: ExchangeAccounts,
    private readonly open: OpenOrders,
    private readonly metrics: RiskMetrics,
    private readonly band: PriceBand,
    private readonly selfTrade: SelfTradeGuard,
    private readonly throttle: OrderThrottle,
  ) {
    this.clients = new Map(config.clients.map((client) => [client.id, client]));
    this.scale = config.risk.exchangePriceScale;
  }

  /** What-if: the insert as it would be sent, or the refusal; nothing reserved, nothing sent. */
  async exchangeCheck(client: AuthenticatedClient, caller: AccountCallerContext, order: OrderRequest): Promise<OrderRequest> {
    const policed = this.policeExchange(client, order, 'body');
    await this.gate.admit(client, [exchangeOrderTerms(policed, this.scale)], this.positions(caller));
    await this.band.check(this.gate.limits, client, policed, 'body');
    await this.selfTrade.check(caller.participant, policed, 'body');
    return policed;
  }

  /** Checks, reserves an open-order slot where a limit counts them, sends, and binds or gives back the slot by the answer. */
  exchangeInsert(client: AuthenticatedClient, caller: AccountCallerContext, order: OrderRequest, send: (order: OrderRequest) => Promise<BudgetedReply>): Promise<BudgetedReply> {
    return this.counted(client, () => this.insertChecked(client, caller, order, send));
  }

  exchangeBatch(client: AuthenticatedClient, caller: AccountCallerContext, batch: BatchInsertRequest, send: (batch: BatchInsertRequest) => Promise<BudgetedReply>): Promise<BudgetedReply> {
    return this.counted(client, () => this.batchChecked(client, caller, batch, send));
  }

  exchangeReplace(client: AuthenticatedClient, batch: BatchReplaceRequest): Promise<BatchReplaceRequest> {
    return this.counted(client, () => this.replaceChecked(client, batch));
  }

  retailCreate(client: AuthenticatedClient, order: CreateOrder): Promise<CreateOrder> {
    return this.counted(client, () => this.retailCreateChecked(client, order));
  }

  retailModify(client: AuthenticatedClient, modify: ModifyOrder): Promise<void> {
    return this.counted(client, async () => {
      this.throttle.take(client);
      await this.gate.admit(client, [retailModifyTerms(modify)]);
    });
  }

  retailClose(client: AuthenticatedClient, close: ClosePosition): Promise<ClosePosition> {
    return this.counted(client, () => this.retailCloseChecked(client, close));
  }

  /** A cancel is never refused here; once the exchange accepted it, the order's open-order slot is given back. */
  async cancelled(orderId: string | undefined): Promise<void> {
    await this.open.closed(orderId);
  }

  /** Runs one order-entering check, counting a risk refusal (by code and scope) on its way out. */
  private async counted<T>(client: AuthenticatedClient, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.metrics.refused(error, `client:${client.id}`);
      throw error;
    }
  }

  private async insertChecked(client: AuthenticatedClient, caller: AccountCallerContext, order: OrderRequest, send: (order: OrderRequest) => Promise<BudgetedReply>): Promise<BudgetedReply> {
    this.throttle.take(client);
    const policed = await this.exchangeCheck(client, caller, order);
    const reservation = await this.open.reserve(this.gate.limits.openOrderScopes(client, policed.symbol), caller.participant, 'body');
    let reply: BudgetedReply;
    try {
      reply = await send(policed);
    } catch (error) {
      await this.open.unsent(reservation, error);
      throw error;
    }
    const orderId = InsertAnswerSchema.safeParse(jsonOf(reply.text)).data?.orderId;
    await (orderId === undefined ? this.open.unsent(reservation) : this.open.bind(reservation, orderId));
    return reply;
  }

  private async batchChecked(client: AuthenticatedClient, caller: AccountCallerContext, batch: BatchInsertRequest, send: (batch: BatchInsertRequest) => Promise<BudgetedReply>): Promise<BudgetedReply> {
    this.throttle.take(client);
    const requests = batch.requests.map((order, i) => this.policeExchange(client, order, `body.requests.${i}`));
    await this.gate.admit(client, requests.map((order, i) => exchangeOrderTerms(order, this.scale, `body.requests.${i}`)), this.positions(caller));
    for (const [i, order] of requests.entries()) {
      await this.band.check(this.gate.limits, client, order, `body.requests.${i}`);
      await this.selfTrade.check(caller.participant, order, `body.requests.${i}`);
    }
    const reservations: (Reservation | undefined)[] = [];
    try {
      for (const [i, order] of requests.entries()) reservations.push(await this.open.reserve(this.gate.limits.openOrderScopes(client, order.symbol), caller.participant, `body.requests.${i}`));
    } catch (error) {
      // All or none: a child over the count gives back the slots its siblings took.
      await Promise.all(reservations.map((reservation) => this.open.unsent(reservation)));
      throw error;
    }
    let reply: BudgetedReply;
    try {
      reply = await send({ requests });
    } catch (error) {
      await Promise.all(reservations.map((reservation) => this.open.unsent(reservation, error)));
      throw error;
    }
    const answers = BatchAnswerSchema.safeParse(jsonOf(reply.text)).data?.responses ?? [];
    await Promise.all(reservations.map((reservation, i) => (answers[i]?.orderId === undefined ? this.open.unsent(reservation) : this.open.bind(reservation, answers[i].orderId))));
    return reply;
  }

  private async replaceChecked(client: AuthenticatedClient, batch: BatchReplaceRequest): Promise<BatchReplaceRequest> {
    this.throttle.take(client);
    const manualOrderIndicator = this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATED';
    const requests = batch.requests.map((replace) => ({ ...replace, manualOrderIndicator }) as const);
    await this.gate.admit(client, requests.map((replace, i) => exchangeReplaceTerms(replace, this.scale, `body.requests.${i}`)));
    return { requests };
  }

  private async retailCreateChecked(client: AuthenticatedClient, order: CreateOrder): Promise<CreateOrder> {
    this.throttle.take(client);
    return this.retailCheck(client, order);
  }

  /** What-if: the checks a retail create meets, as sent; not counted against the client's throttle. */
  async retailCheck(client: AuthenticatedClient, order: CreateOrder): Promise<CreateOrder> {
    const stamped: CreateOrder = { ...order, manualOrderIndicator: this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATIC' };
    await this.gate.admit(client, [retailOrderTerms(stamped)]);
    return stamped;
  }

  private async retailCloseChecked(client: AuthenticatedClient, close: ClosePosition): Promise<ClosePosition> {
    this.throttle.take(client);
    const stamped: ClosePosition = { ...close, manualOrderIndicator: this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATIC' };
    await this.gate.admit(client, [retailCloseTerms(stamped)]);
    return stamped;
  }

  private policeExchange(client: AuthenticatedClient, order: OrderRequest, path: string): OrderRequest {
    if (order.ignorePriceValidityChecks && !this.clients.get(client.id)?.entitlements.includes('ignorePriceValidityChecks')) throw notEntitled('ignorePriceValidityChecks', path);
    return { ...order, manualOrderIndicator: this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATED' };
  }

  private manual(client: AuthenticatedClient): boolean {
    return this.clients.get(client.id)?.manualOrders ?? false;
  }

  /** The participant's net position per symbol, read once per request and only if a reduce-only state asks. */
  private positions(caller: AccountCallerContext): PositionOf {
    let read: Promise<Map<string, number>> | undefined;
    return async (market) => {
      read ??= this.accounts.positions(caller).then((reply) => new Map(PositionsSchema.parse(JSON.parse(reply.text)).positions.map((p) => [p.symbol, Number(p.netPosition)])));
      return (await read).get(market) ?? 0;
    };
  }
}
