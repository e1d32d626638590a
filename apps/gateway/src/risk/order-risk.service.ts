import { Inject, Injectable } from '@nestjs/common';
import { type ClientConfig, GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import { type AccountCallerContext, type BatchInsertRequest, type BatchReplaceRequest, ExchangeAccounts, type OrderRequest } from '@lib/exchange';
import type { ClosePosition, CreateOrder, ModifyOrder } from '@lib/retail';
import { z } from 'zod';

import type { AuthenticatedClient } from '../common/authenticated-client.js';
import { exchangeOrderTerms, exchangeReplaceTerms, retailCloseTerms, retailModifyTerms, retailOrderTerms } from './order-terms.js';
import { notEntitled } from './risk.error.js';
import { type PositionOf, RiskGate } from './risk-gate.service.js';

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
  ) {
    this.clients = new Map(config.clients.map((client) => [client.id, client]));
    this.scale = config.risk.exchangePriceScale;
  }

  async exchangeInsert(client: AuthenticatedClient, caller: AccountCallerContext, order: OrderRequest): Promise<OrderRequest> {
    const policed = this.policeExchange(client, order, 'body');
    await this.gate.admit(client, [exchangeOrderTerms(policed, this.scale)], this.positions(caller));
    return policed;
  }

  async exchangeBatch(client: AuthenticatedClient, caller: AccountCallerContext, batch: BatchInsertRequest): Promise<BatchInsertRequest> {
    const requests = batch.requests.map((order, i) => this.policeExchange(client, order, `body.requests.${i}`));
    await this.gate.admit(client, requests.map((order, i) => exchangeOrderTerms(order, this.scale, `body.requests.${i}`)), this.positions(caller));
    return { requests };
  }

  async exchangeReplace(client: AuthenticatedClient, batch: BatchReplaceRequest): Promise<BatchReplaceRequest> {
    const manualOrderIndicator = this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATED';
    const requests = batch.requests.map((replace) => ({ ...replace, manualOrderIndicator }) as const);
    await this.gate.admit(client, requests.map((replace, i) => exchangeReplaceTerms(replace, this.scale, `body.requests.${i}`)));
    return { requests };
  }

  async retailCreate(client: AuthenticatedClient, order: CreateOrder): Promise<CreateOrder> {
    const stamped: CreateOrder = { ...order, manualOrderIndicator: this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATIC' };
    await this.gate.admit(client, [retailOrderTerms(stamped)]);
    return stamped;
  }

  async retailModify(client: AuthenticatedClient, modify: ModifyOrder): Promise<void> {
    await this.gate.admit(client, [retailModifyTerms(modify)]);
  }

  async retailClose(client: AuthenticatedClient, close: ClosePosition): Promise<ClosePosition> {
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
