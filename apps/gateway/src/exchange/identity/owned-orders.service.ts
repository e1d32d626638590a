import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@lib/core';
import { type AccountCallerContext, ExchangeTrading } from '@lib/exchange';
import { z } from 'zod';

import type { BoundBody } from './identity-binder.js';

/** Only what the check reads of the open-orders snapshot, loose so that added upstream fields do not matter. */
const OpenOrdersSchema = z.looseObject({
  orders: z.array(z.looseObject({ id: z.string().optional(), account: z.string().optional() })).optional(),
});

function jsonOrEmpty(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/**
 * Cancel and replace name orders by id, which the exchange resolves firm-wide: the gateway first asks
 * the exchange, as the chosen participant, for that participant's working orders (the open-orders
 * snapshot, which has no published limit, spent through the ordinary pipeline) and answers 404 for an
 * id that is not among them, saying nothing about whose it is.
 */
@Injectable()
export class OwnedOrders {
  constructor(private readonly trading: ExchangeTrading) {}

  async confirmed<T>(caller: AccountCallerContext, bound: BoundBody<T>): Promise<T> {
    if (bound.orders.length === 0) return bound.body;
    const working = await this.workingOrderIds(caller);
    const missing = bound.orders.find((order) => !working.has(order.id));
    if (missing)
      throw new NotFoundError(
        `No working order ${missing.id.slice(0, 100)} for participant ${caller.participant} (${missing.field}).`,
      );
    return bound.body;
  }

  private async workingOrderIds(caller: AccountCallerContext): Promise<Set<string>> {
    const reply = await this.trading.openOrders(caller);
    const parsed = OpenOrdersSchema.safeParse(jsonOrEmpty(reply.text));
    const orders = parsed.success ? (parsed.data.orders ?? []) : [];
    // An order booked to another account than the participant asked as is not this participant's.
    return new Set(
      orders
        .filter((order) => order.account === undefined || order.account === caller.participant)
        .flatMap((order) => (order.id ? [order.id] : [])),
    );
  }
}
