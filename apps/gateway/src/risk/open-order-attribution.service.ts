import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '@lib/core';
import { ORDER_INTENTS, RETAIL_ORDER_TYPES } from '@lib/retail';
import { z } from 'zod';

import { MarketEvents } from './market-events.service.js';
import { type CountKind, type CountedOrder, retailOwner } from './open-orders.store.js';
import { exchangeOrderExposure } from './order-terms.js';
import { retailOrderExposure } from './retail-book-side.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** An order of the exchange's open-orders snapshot, as far as the counts need it (int64 fields as strings or numbers). */
const int64 = z.union([z.string(), z.number()]).transform(String).optional();
export const OpenOrderSchema = z.looseObject({
  id: z.string(),
  symbol: z.string().optional(),
  side: z.enum(['SIDE_BUY', 'SIDE_SELL']).optional(),
  orderQty: int64,
  leavesQty: int64,
  price: int64,
  cashOrderQty: int64,
});
export const OpenOrdersSchema = z.looseObject({ orders: z.array(OpenOrderSchema).default([]) });
export type OpenOrder = z.infer<typeof OpenOrderSchema>;

/** A retail account's open order (`GET /v1/orders/open`), as far as the counts need it. */
export const RetailOpenOrderSchema = z.looseObject({
  id: z.string(),
  marketSlug: z.string(),
  intent: z.enum(ORDER_INTENTS),
  type: z.enum(RETAIL_ORDER_TYPES).optional(),
  price: z.looseObject({ value: z.string(), currency: z.string() }).optional(),
  leavesQuantity: z.number().optional(),
  quantity: z.number().optional(),
});
export const RetailOpenOrdersSchema = z.looseObject({ orders: z.array(RetailOpenOrderSchema).default([]) });
export type RetailOpenOrder = z.infer<typeof RetailOpenOrderSchema>;

/**
 * The counts an order found open at the exchange falls under, for a rebuild after Redis lost them. The
 * exchange names the order's participant, not the client that sent it: the order counts for every
 * configured client that uses that participant (each count once), so a rebuilt count is never under
 * what is open, and over it only where clients of different scopes share a participant.
 */
@Injectable()
export class OpenOrderAttribution {
  private readonly clients: GatewayConfig['clients'];
  private readonly scale: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly events: MarketEvents,
    private readonly source: RiskLimitsSource,
  ) {
    this.clients = config.clients;
    this.scale = config.risk.exchangePriceScale;
  }

  /** Every participant a configured client trades as: whose open orders a rebuild reads. */
  participants(): string[] {
    return [...new Set(this.clients.flatMap((client) => client.participants))];
  }

  /** Every retail account a configured client trades as: whose open orders a rebuild reads too. */
  retailAccounts(): string[] {
    return [...new Set(this.clients.flatMap((client) => client.retailAccounts))];
  }

  /** A retail account's open order's counts and what it adds to them (its leaves quantity), as `counted`; owner `retail:<account>`. */
  async retailCounted(order: RetailOpenOrder, account: string): Promise<Omit<CountedOrder, 'token'> | undefined> {
    const event = await this.events.of(order.marketSlug, 'body');
    const kinds = new Map<string, CountKind>();
    const limits = this.source.current();
    for (const client of this.clients) {
      if (!client.retailAccounts.includes(account)) continue;
      for (const count of limits.openOrderScopes(client, order.marketSlug, event)) kinds.set(count.key, 'orders');
      for (const count of limits.exposureCounts(client, order.marketSlug, event)) kinds.set(count.key, count.kind);
    }
    if (kinds.size === 0) return undefined;
    const quantity = order.leavesQuantity ?? order.quantity;
    const exposure = retailOrderExposure({
      marketSlug: order.marketSlug,
      intent: order.intent,
      ...(order.type === undefined ? {} : { type: order.type }),
      ...(order.price === undefined ? {} : { price: { value: order.price.value, currency: 'USD' } }),
      ...(quantity === undefined ? {} : { quantity }),
    });
    return { keys: [...kinds.keys()], kinds: [...kinds.values()], participant: retailOwner(account), exposure };
  }

  /** The order's counts and what it adds to them (its leaves quantity); undefined when no count applies. */
  async counted(order: OpenOrder, participant: string): Promise<Omit<CountedOrder, 'token'> | undefined> {
    const symbol = order.symbol ?? '';
    const event = symbol === '' ? undefined : await this.events.of(symbol, 'body');
    const kinds = new Map<string, CountKind>();
    const limits = this.source.current();
    for (const client of this.clients) {
      if (!client.participants.includes(participant)) continue;
      for (const count of limits.openOrderScopes(client, symbol, event)) kinds.set(count.key, 'orders');
      for (const count of limits.exposureCounts(client, symbol, event)) kinds.set(count.key, count.kind);
    }
    if (kinds.size === 0) return undefined;
    const qty = order.leavesQty ?? order.orderQty;
    const exposure = exchangeOrderExposure(
      {
        symbol,
        side: order.side ?? 'SIDE_BUY',
        ...(qty === undefined ? {} : { orderQty: qty }),
        ...(order.price === undefined ? {} : { price: order.price }),
        ...(qty === undefined && order.cashOrderQty !== undefined ? { cashOrderQty: order.cashOrderQty } : {}),
      },
      this.scale,
    );
    return { keys: [...kinds.keys()], kinds: [...kinds.values()], participant, exposure };
  }
}
