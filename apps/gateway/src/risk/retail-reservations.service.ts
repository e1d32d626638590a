import { Injectable } from '@nestjs/common';
import type { BudgetedReply } from '@lib/ratelimit';
import type { CreateOrder, ModifyOrder, OrderIntent } from '@lib/retail';
import { jsonOrUndefined } from '@lib/upstream';
import { z } from 'zod';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { Exposure } from './exposure.service.js';
import { MarketEvents } from './market-events.service.js';
import { MICROS, type OpenOrderCount, retailOwner } from './open-orders.store.js';
import { OpenOrders, type Reservation, uncounted } from './open-orders.service.js';
import { retailOrderExposure } from './retail-book-side.js';
import { RetailOrderView } from './retail-order-view.service.js';
import { CLOSED_ORDER_STATES } from './order-states.js';

const CreateAnswerSchema = z.looseObject({
  id: z.string(),
  executions: z.array(z.looseObject({ order: z.looseObject({ state: z.string().optional() }).optional() })).optional(),
});
/** How long a modify of an order holding no counted share waits for its account's open orders on a freshly started instance. */
const VIEW_WAIT_MS = 1_000;

const usd = (value: number) => ({ value: String(value), currency: 'USD' as const });

const CanceledSchema = z.looseObject({ canceledOrderIds: z.array(z.string()).default([]) });

/** A retail price's worst case per contract: a buy (long or short) loses its price, a sell 1 − price; an unknown intent the worse. */
function worstPerContract(intent: OrderIntent | undefined, price: number): number {
  if (intent === 'ORDER_INTENT_BUY_LONG' || intent === 'ORDER_INTENT_BUY_SHORT') return price;
  if (intent === 'ORDER_INTENT_SELL_LONG' || intent === 'ORDER_INTENT_SELL_SHORT') return 1 - price;
  return Math.max(price, 1 - price);
}

/**
 * The counted step of a retail create (issue 26 item 1), the same shared counts as exchange inserts
 * (OpenOrders: one atomic reservation across instances, all counts or none): open orders, open
 * notional and same-side quantity against the net position, of every scope whose limit applies to the
 * client on the order's market (or its event), reserved before the send, bound to the order id the
 * answer names, given back on a refusal, a cancel answer, or a close seen on the retail order channel
 * (RetailOrderView). The retail account is the reservation's owner, so a reconcile reads that
 * account's open orders. A net-position count starts from the scope's positions on both surfaces
 * (Exposure.retailCounts).
 */
@Injectable()
export class RetailReservations {
  constructor(
    private readonly exposure: Exposure,
    private readonly open: OpenOrders,
    private readonly events: MarketEvents,
    private readonly view: RetailOrderView,
  ) {}

  /** What-if: whether the counts have room for the order now (read, never reserved). */
  async judge(client: AuthenticatedClient, order: CreateOrder, path = 'body'): Promise<void> {
    await this.open.judge(await this.counts(client, order.marketSlug, path), path, retailOrderExposure(order));
  }

  async send(
    client: AuthenticatedClient,
    account: string,
    order: CreateOrder,
    send: () => Promise<BudgetedReply>,
    path = 'body',
  ): Promise<BudgetedReply> {
    const counts = () => this.counts(client, order.marketSlug, path);
    const reservation = await this.open.reserve(
      await counts(),
      retailOwner(account),
      path,
      retailOrderExposure(order),
      counts,
    );
    let reply: BudgetedReply;
    try {
      reply = await send();
    } catch (error) {
      await this.open.unsent(reservation, error);
      throw error;
    }
    const answer = CreateAnswerSchema.safeParse(jsonOrUndefined(reply.text)).data;
    if (!answer) {
      await this.open.unsent(reservation);
      return reply;
    }
    const last = answer.executions?.at(-1)?.order?.state;
    if (last !== undefined && CLOSED_ORDER_STATES.has(last)) {
      await this.open.unsent(reservation);
      return reply;
    }
    this.view.placed(account, answer.id, order);
    await this.open.bind(reservation, answer.id);
    // The channel may have shown the order closed before this answer bound it.
    if (this.view.seenClosed(answer.id)) await this.open.closed(answer.id);
    return reply;
  }

  /**
   * A retail modify of a counted order: its share of the open notional and position counts is held at
   * the larger of old and new while the modify is sent (a growth judged like a create: the refusal, and
   * nothing sent), then set to the new terms once answered, or back to the old ones when refused. The
   * new notional per contract: the new price at the order's worst case (its intent, when known here;
   * else the worse side), or the old one when the price is kept.
   */
  async modify(
    client: AuthenticatedClient,
    account: string,
    orderId: string,
    modify: ModifyOrder,
    send: () => Promise<BudgetedReply>,
    path = 'body',
  ): Promise<BudgetedReply> {
    const counts = (await this.counts(client, modify.marketSlug, path)).filter((count) => count.kind !== undefined);
    const price = modify.price === undefined ? undefined : Number(modify.price.value);
    const perContract =
      price === undefined
        ? undefined
        : Math.round(worstPerContract(this.view.intentOf(account, orderId), price) * MICROS);
    const held = await this.open.amend(orderId, counts, path, {
      mode: 'hold',
      ...(modify.quantity === undefined ? {} : { qty: Math.ceil(modify.quantity) }),
      ...(perContract === undefined ? {} : { microsPerContract: perContract }),
    });
    const before = held.before;
    if (!before) {
      if (counts.length === 0) return send();
      return this.modifyFresh(account, orderId, modify, counts, send, path);
    }
    let reply: BudgetedReply;
    try {
      reply = await send();
    } catch (error) {
      await this.open.amended(orderId, counts, before, error);
      throw error;
    }
    const qty = modify.quantity === undefined ? before.qty : Math.ceil(modify.quantity);
    const per = perContract ?? (before.qty > 0 ? before.micros / before.qty : 0);
    await this.open.amended(orderId, counts, { qty, micros: Math.floor(per * qty + 0.5) });
    return reply;
  }

  /**
   * A modify of an order with no share of the counts that bind the client (placed outside the gateway,
   * or by a client no such count binds): judged like a create of its new terms, its quantity (the body's,
   * else its open quantity on the order channel) at its price (the body's, else its own; a market order's
   * worst case), reserved before the send (the refusal of a full count: nothing sent), bound to the order
   * once answered, given back when refused. An order the channel does not show open on the account is
   * the retail API's to answer (nothing to count); one it cannot show now refuses fail-closed.
   */
  private async modifyFresh(
    account: string,
    orderId: string,
    modify: ModifyOrder,
    counts: OpenOrderCount[],
    send: () => Promise<BudgetedReply>,
    path: string,
  ): Promise<BudgetedReply> {
    const found = await this.view.find(account, orderId, VIEW_WAIT_MS);
    if (!found) throw uncounted(`the open orders of retail account ${account} are not known yet`);
    const { order } = found;
    if (!order) return send();
    const quantity = modify.quantity ?? order.leaves;
    if (quantity === undefined) throw uncounted(`the quantity of order ${orderId.slice(0, 100)} is not known`);
    const price = modify.price ?? (order.retailPrice === undefined ? undefined : usd(order.retailPrice));
    const exposure = retailOrderExposure({
      marketSlug: order.marketSlug,
      intent: order.intent,
      quantity,
      ...(price === undefined ? { type: 'ORDER_TYPE_MARKET' as const } : { price }),
    });
    const reservation: Reservation | undefined = await this.open.reserve(counts, retailOwner(account), path, exposure);
    let reply: BudgetedReply;
    try {
      reply = await send();
    } catch (error) {
      await this.open.unsent(reservation, error);
      throw error;
    }
    if (reply.status >= 200 && reply.status < 300) await this.open.bind(reservation, orderId);
    else await this.open.unsent(reservation);
    return reply;
  }

  /** A retail cancel-all answered: every order it names gives its share back. Never throws. */
  async cancelledAll(text: string): Promise<void> {
    const ids = CanceledSchema.safeParse(jsonOrUndefined(text)).data?.canceledOrderIds ?? [];
    await Promise.all(ids.map((id) => this.open.closed(id)));
  }

  /** Open orders, open notional and net position of every scope that binds the order (Exposure.retailCounts). */
  private async counts(client: AuthenticatedClient, marketSlug: string, path: string): Promise<OpenOrderCount[]> {
    return this.exposure.counts(client, marketSlug, await this.events.of(marketSlug, path), path);
  }
}
