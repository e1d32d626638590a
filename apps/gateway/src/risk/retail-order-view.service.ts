import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { GATEWAY_CONFIG } from '@lib/core';
import {
  type CreateOrder,
  ORDER_INTENTS,
  type OrderIntent,
  RetailPrivateChannels,
  type RetailStreamEvent,
} from '@lib/retail';
import { z } from 'zod';

import { OpenOrders } from './open-orders.service.js';
import { yesPriceOf, yesSideOf } from './retail-book-side.js';
import { CLOSED_ORDER_STATES } from './order-states.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** One resting retail order as the gateway sees it: where it stands on the market's YES book. */
export interface RestingRetailOrder {
  id: string;
  account: string;
  marketSlug: string;
  side: 'buy' | 'sell';
  intent: OrderIntent;
  /** Its YES price; undefined for a market order. */
  price?: number;
  /** Its price as the retail API states it (named in a refusal). */
  retailPrice?: number;
  /** Its open quantity, as the channel last showed it. */
  leaves?: number;
}

const OrderSchema = z.looseObject({
  id: z.string(),
  marketSlug: z.string(),
  intent: z.enum(ORDER_INTENTS),
  type: z.string().optional(),
  price: z.looseObject({ value: z.string() }).optional(),
  state: z.string(),
  leavesQuantity: z.number().optional(),
});
const SnapshotSchema = z.looseObject({ orders: z.array(z.unknown()).default([]), eof: z.boolean().optional() });
const UpdateSchema = z.looseObject({ execution: z.looseObject({ order: z.unknown() }) });

/** How many closed order ids are remembered: a close seen on the channel before the create's answer bound the order. */
const CLOSED_MEMORY = 10_000;

/** Per account: its resting orders, whether they are known (a snapshot arrived, no gap since), and who waits for that. */
interface AccountView {
  orders: Map<string, RestingRetailOrder>;
  known: boolean;
  /** The snapshot being received (pages until `eof`). */
  pending?: Map<string, RestingRetailOrder>;
  waiters: (() => void)[];
  release?: () => void;
}

function restingOf(
  account: string,
  value: unknown,
): (RestingRetailOrder & { state: string; leaves?: number }) | undefined {
  const order = OrderSchema.safeParse(value).data;
  if (!order) return undefined;
  const retailPrice = order.type === 'ORDER_TYPE_MARKET' || !order.price ? undefined : Number(order.price.value);
  const price = yesPriceOf(order.intent, retailPrice);
  return {
    id: order.id,
    account,
    marketSlug: order.marketSlug,
    side: yesSideOf(order.intent),
    intent: order.intent,
    state: order.state,
    ...(price === undefined || !Number.isFinite(price) ? {} : { price, retailPrice }),
    ...(order.leavesQuantity === undefined ? {} : { leaves: order.leavesQuantity }),
  };
}

/**
 * The firm's retail accounts' open orders, from the private order channel the gateway holds (one
 * SUBSCRIPTION_TYPE_ORDER per configured retail account, all markets, shared with the unknown-outcome
 * finder's RetailOrderChannel through RetailPrivateChannels): the retail surface's order
 * stream for the brakes. A close (fill, cancel, reject, expiry) gives the order's share of the counts
 * back, a partial fill shrinks it (OpenOrders); the resting orders are what a retail create is judged
 * against for cross-team self-trade. Held only while a counted limit or the self-trade policy needs it.
 */
@Injectable()
export class RetailOrderView implements OnModuleInit, OnModuleDestroy {
  private readonly wanted: boolean;
  readonly accounts: readonly string[];
  private readonly views = new Map<string, AccountView>();
  private readonly closedIds = new Set<string>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly channels: RetailPrivateChannels,
    private readonly open: OpenOrders,
  ) {
    this.accounts = (config.environments[config.environment]?.retailAccounts ?? []).map((account) => account.name);
    const counted = config.risk.limits.some(
      (limit) =>
        limit.maxOpenOrders !== undefined || limit.maxOpenNotional !== undefined || limit.maxNetPosition !== undefined,
    );
    // The self-trade policy judges exchange orders against retail accounts' too: one account is enough.
    this.wanted = counted || (config.risk.crossTeamSelfTrade === 'reject' && this.accounts.length > 0);
    if (!this.wanted) return;
    channels.listen('SUBSCRIPTION_TYPE_ORDER', {
      event: (account, event) => {
        const view = this.views.get(account);
        if (view) void this.received(account, view, event);
      },
      gap: (account) => {
        const view = this.views.get(account);
        if (!view) return;
        view.known = false;
        view.pending = undefined;
      },
    });
  }

  onModuleInit(): void {
    if (!this.wanted) return;
    for (const account of this.accounts) this.hold(account);
  }

  onModuleDestroy(): void {
    for (const view of this.views.values()) view.release?.();
    this.views.clear();
  }

  /**
   * The resting orders of `account` in `marketSlug`, or undefined while they are not known (no snapshot
   * yet, or the channel dropped and its new snapshot has not come): waits up to `waitMs` for them.
   */
  async resting(account: string, marketSlug: string, waitMs: number): Promise<RestingRetailOrder[] | undefined> {
    const view = this.views.get(account);
    if (!view) return undefined;
    if (!view.known) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        view.waiters.push(resolve);
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
      if (!view.known) return undefined;
    }
    return [...view.orders.values()].filter((order) => order.marketSlug === marketSlug);
  }

  /** A create this instance sent was answered with `id`: known at once (the channel confirms it), unless already seen closed. */
  placed(account: string, id: string, order: CreateOrder): void {
    const view = this.views.get(account);
    if (!view || this.closedIds.has(id) || view.orders.has(id)) return;
    const retailPrice = order.type === 'ORDER_TYPE_MARKET' || !order.price ? undefined : Number(order.price.value);
    const price = yesPriceOf(order.intent, retailPrice);
    view.orders.set(id, {
      id,
      account,
      marketSlug: order.marketSlug,
      side: yesSideOf(order.intent),
      intent: order.intent,
      ...(price === undefined ? {} : { price, retailPrice }),
    });
  }

  /** The intent of an open order of `account` this instance knows (from its create's answer or the channel). */
  intentOf(account: string, id: string): OrderIntent | undefined {
    return this.views.get(account)?.orders.get(id)?.intent;
  }

  /**
   * An order of `account` as the channel shows it: `{order}` while the account's open orders are known
   * (`order` undefined: not open there), undefined while they are not (waits up to `waitMs` for them).
   */
  async find(account: string, id: string, waitMs: number): Promise<{ order?: RestingRetailOrder } | undefined> {
    const view = this.views.get(account);
    if (!view) return undefined;
    if (!(await this.resting(account, '', waitMs))) return undefined;
    const order = view.orders.get(id);
    return order ? { order } : {};
  }

  /** The channel showed the order closed (it may have before the create's answer came back). */
  seenClosed(id: string): boolean {
    return this.closedIds.has(id);
  }

  private hold(account: string): void {
    const view: AccountView = { orders: new Map(), known: false, waiters: [] };
    this.views.set(account, view);
    view.release = this.channels.hold(account, 'SUBSCRIPTION_TYPE_ORDER');
  }

  private async received(account: string, view: AccountView, event: RetailStreamEvent): Promise<void> {
    if (event.stream !== 'orders') return;
    if (event.kind === 'snapshot') {
      const snapshot = SnapshotSchema.safeParse(event.data).data;
      if (!snapshot) return;
      view.pending ??= new Map();
      for (const value of snapshot.orders) {
        const order = restingOf(account, value);
        if (order && !CLOSED_ORDER_STATES.has(order.state)) view.pending.set(order.id, order);
      }
      if (snapshot.eof === false) return;
      view.orders = view.pending;
      view.pending = undefined;
      view.known = true;
      for (const wake of view.waiters.splice(0)) wake();
      return;
    }
    const order = restingOf(account, UpdateSchema.safeParse(event.data).data?.execution.order);
    if (!order) return;
    if (CLOSED_ORDER_STATES.has(order.state)) {
      view.orders.delete(order.id);
      this.rememberClosed(order.id);
      await this.open.closed(order.id);
      return;
    }
    const { state: _state, ...resting } = order;
    view.orders.set(order.id, resting);
    const leaves = resting.leaves;
    if (leaves !== undefined) await this.open.leaves(order.id, leaves);
  }

  private rememberClosed(id: string): void {
    this.closedIds.add(id);
    if (this.closedIds.size > CLOSED_MEMORY) this.closedIds.delete(this.closedIds.values().next().value!);
  }
}
