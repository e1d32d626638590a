import { Injectable } from '@nestjs/common';
import type { AccountCallerContext, OrderRequest } from '@lib/exchange';
import type { BudgetedReply } from '@lib/ratelimit';
import { jsonOrUndefined } from '@lib/upstream';
import { z } from 'zod';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { Exposure } from './exposure.service.js';
import { MarketEvents } from './market-events.service.js';
import { OpenOrders, type Reservation } from './open-orders.service.js';

const InsertAnswerSchema = z.looseObject({ orderId: z.string() });
const BatchAnswerSchema = z.looseObject({ responses: z.array(z.looseObject({ orderId: z.string().optional() })) });

/** The order ids an insert (one) or a batch insert (one per child, in order) was answered with. */
export function insertedIds(text: string, batch: boolean): (string | undefined)[] {
  if (!batch) return [InsertAnswerSchema.safeParse(jsonOrUndefined(text)).data?.orderId];
  return (BatchAnswerSchema.safeParse(jsonOrUndefined(text)).data?.responses ?? []).map((answer) => answer.orderId);
}

/**
 * The counted step of an exchange insert (one order, or every child of a batch), run inside the order
 * path's send once the idempotency key is claimed: reserves what the order counts against (open-order
 * slots, open notional, same-side quantity against the net position; all children or none), sends, then binds each reservation to the order id the exchange answered or gives
 * it back. The stateless checks ran before, in OrderRisk.
 */
@Injectable()
export class OrderReservations {
  constructor(
    private readonly open: OpenOrders,
    private readonly exposure: Exposure,
    private readonly events: MarketEvents,
  ) {}

  /**
   * What-if: whether every count the orders fall under has room for them (read, never reserved), or the
   * refusal a send would meet now. Concurrent orders may take the room before a real send.
   */
  async judge(client: AuthenticatedClient, orders: readonly OrderRequest[], paths: readonly string[]): Promise<void> {
    for (const [i, order] of orders.entries()) {
      const counts = await this.exposure.counts(
        client,
        order.symbol,
        await this.events.of(order.symbol, paths[i]),
        paths[i],
      );
      await this.open.judge(counts, paths[i], this.exposure.of(order));
    }
  }

  async send(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    orders: readonly OrderRequest[],
    paths: readonly string[],
    batch: boolean,
    send: () => Promise<BudgetedReply>,
  ): Promise<BudgetedReply> {
    const reservations: (Reservation | undefined)[] = [];
    try {
      for (const [i, order] of orders.entries()) {
        const event = await this.events.of(order.symbol, paths[i]);
        const counts = async () => this.exposure.counts(client, order.symbol, event, paths[i]);
        // After a refusal the counts are reconciled with the exchange: the streamed positions are taken again with them.
        reservations.push(
          await this.open.reserve(await counts(), caller.participant, paths[i], this.exposure.of(order), counts),
        );
      }
    } catch (error) {
      // All or none: a child over the count gives back what its siblings took.
      await Promise.all(reservations.map((reservation) => this.open.unsent(reservation)));
      throw error;
    }
    let reply: BudgetedReply;
    try {
      reply = await send();
    } catch (error) {
      await Promise.all(reservations.map((reservation) => this.open.unsent(reservation, error)));
      throw error;
    }
    const ids = insertedIds(reply.text, batch);
    await Promise.all(
      reservations.map((reservation, i) =>
        ids[i] === undefined ? this.open.unsent(reservation) : this.open.bind(reservation, ids[i]),
      ),
    );
    return reply;
  }
}
