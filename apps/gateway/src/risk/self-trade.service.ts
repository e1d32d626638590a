import { randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import { ExchangeTrading, type OrderRequest, type ReplaceRequest } from '@lib/exchange';
import { z } from 'zod';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { PRICELESS_TYPES } from './order-terms.js';
import { marketUnknown } from './risk.error.js';
import { type RestingRetailOrder, RetailOrderView } from './retail-order-view.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

const OpenOrdersSchema = z.looseObject({
  orders: z
    .array(
      z.looseObject({
        symbol: z.string().optional(),
        side: z.string().optional(),
        price: z.string().optional(),
        type: z.string().optional(),
      }),
    )
    .default([]),
});

/**
 * The client whose order is judged: the guard's reads of the other participants' open orders are its
 * calls, counted in its own and its team's bounds on calls in flight (bulkheads), so a team's flood
 * meets only its own bound. (The open-orders snapshot has no published limit: no budget is spent.)
 */
export type JudgedFor = Pick<AuthenticatedClient, 'id' | 'team'>;

/**
 * Cross-team self-trade prevention (issue 26), a firm policy: with `risk.crossTeamSelfTrade: reject`, an
 * exchange order that would cross a resting order of another of the firm's participants is refused.
 * Their symbol's resting orders are read from the exchange's open-orders snapshot at that moment (the
 * source of truth; one read per other participant per order). Every order is looked at, not only those
 * the streamed book shows would execute at once: the book lags the exchange, so an offer another team
 * rested a moment ago is not in it yet, and a bid priced through it looked passive and traded with it.
 */
@Injectable()
export class SelfTradeGuard {
  private readonly policy: 'off' | 'reject';
  private readonly participants: readonly string[];
  private readonly scale: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly trading: ExchangeTrading,
    private readonly retail: RetailOrderView,
  ) {
    this.policy = config.risk.crossTeamSelfTrade;
    this.participants = [...new Set(config.clients.flatMap((client) => client.participants))];
    this.scale = config.risk.exchangePriceScale;
  }

  /**
   * An exchange order of `participant`: refused when it would cross a resting order of another of the
   * firm's participants, or of any of the firm's retail accounts (one book per market on this venue:
   * a retail slug is the exchange symbol), from the gateway's view of their orders (RetailOrderView).
   */
  async check(by: JudgedFor, participant: string, order: OrderRequest, path: string): Promise<void> {
    if (this.policy === 'off') return;
    await this.againstParticipants(by, participant, order, path);
    if (order.participateDontInitiate) return;
    const price =
      order.price === undefined || PRICELESS_TYPES.has(order.type) ? undefined : Number(order.price) / 10 ** this.scale;
    const side = order.side === 'SIDE_BUY' ? 'buy' : 'sell';
    for (const account of this.retail.accounts) {
      const resting = await this.retail.resting(account, order.symbol, RETAIL_KNOWN_WAIT_MS);
      if (!resting) throw retailOrdersUnknown(account, path);
      const crossed = resting.find((rest) => crossesRetail(side, price, rest));
      if (crossed) throw selfTradeRefusal(order.symbol, crossed.retailPrice, path);
    }
  }

  /**
   * A replace that sets a new price (issue 26: judged against its new values): the order at that price,
   * on its own market and side (`origin`, OrderOrigins), is judged as an insert. An order whose market or
   * side is not known cannot be judged: refused (fail closed) while the policy is on.
   */
  async checkReprice(
    by: JudgedFor,
    participant: string,
    replace: ReplaceRequest,
    origin: { market: string; side: 'buy' | 'sell' } | undefined,
    path: string,
  ): Promise<void> {
    if (this.policy === 'off' || replace.price === undefined) return;
    if (!origin)
      throw marketUnknown(
        replace.orderId,
        'cross-team self-trade prevention (risk.crossTeamSelfTrade: reject) is on',
        path,
      );
    const order: OrderRequest = {
      symbol: origin.market,
      side: origin.side === 'buy' ? 'SIDE_BUY' : 'SIDE_SELL',
      type: 'ORDER_TYPE_LIMIT',
      price: replace.price,
      ...(replace.participateDontInitiate ? { participateDontInitiate: true } : {}),
    };
    await this.check(by, participant, order, path);
  }

  /**
   * The exchange participants' part: an order is refused when it crosses a resting order of a
   * participant other than `participant` (a retail create, which is no participant's, is judged
   * against them all).
   */
  async againstParticipants(
    by: JudgedFor,
    participant: string | undefined,
    order: OrderRequest,
    path: string,
  ): Promise<void> {
    if (this.policy === 'off') return;
    const others = this.participants.filter((name) => name !== participant);
    if (others.length === 0) return;
    const resting = await Promise.all(others.map((other) => this.restingOf(by, other, order.symbol)));
    const crossed = resting.flat().find((rest) => crosses(order, rest));
    if (!crossed) return;
    throw selfTradeRefusal(order.symbol, crossed.price === undefined ? undefined : Number(crossed.price), path);
  }

  /** Fails closed: an unreadable snapshot refuses the order rather than letting a possible self-trade through. */
  private async restingOf(
    by: JudgedFor,
    participant: string,
    symbol: string,
  ): Promise<{ side?: string; price?: string }[]> {
    const reply = await this.trading.openOrders({
      team: by.team,
      client: by.id,
      requestId: `stp-${randomUUID()}`,
      participant,
    });
    return OpenOrdersSchema.parse(JSON.parse(reply.text)).orders.filter((rest) => rest.symbol === symbol);
  }
}

/** The refusal of an order that would cross a resting order of another of the firm's participants or retail accounts (policy reject). */
export function selfTradeRefusal(symbol: string, restingPrice: number | undefined, path: string): DomainError {
  return new DomainError(
    ErrorCode.RISK_CROSS_TEAM_SELF_TRADE,
    `This order would cross a resting order of another of the firm's participants at ${restingPrice ?? 'market'}; the firm's policy (risk.crossTeamSelfTrade: reject) forbids trading with itself. Nothing was sent.`,
    { extensions: { policy: 'reject', symbol, restingPrice, order: path } },
  );
}

/** How long an order waits for a retail account's open orders to become known (its channel's first snapshot) before it is refused. */
export const RETAIL_KNOWN_WAIT_MS = 2_000;

/** Prices compared in millionths: a mirrored short price (1 − p) must not miss an equal one by a rounding error. */
const micros = (price: number) => Math.round(price * 1_000_000);

/** A YES buy crosses a resting YES sell priced at or under it, a sell a resting buy at or over it; an unpriced (market) order crosses any on the other side. */
export function crossesRetail(side: 'buy' | 'sell', price: number | undefined, rest: RestingRetailOrder): boolean {
  if (rest.side === side) return false;
  if (price === undefined || rest.price === undefined) return true;
  return side === 'buy' ? micros(rest.price) <= micros(price) : micros(rest.price) >= micros(price);
}

/** Fail closed: a retail account's orders that are not known here may be crossed. */
export function retailOrdersUnknown(account: string, path: string): DomainError {
  return new DomainError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `The open orders of the firm's retail account ${account} are not known on this instance (its order channel is not held): a self-trade cannot be ruled out; nothing was sent.`,
    { extensions: { order: path }, headers: { 'Retry-After': '1' } },
  );
}

/** A buy crosses a resting sell priced at or under it, a sell a resting buy at or over it; a market order crosses any on the other side. */
function crosses(order: OrderRequest, rest: { side?: string; price?: string }): boolean {
  if (rest.side === undefined || rest.side === order.side) return false;
  // A stop trades at the market once triggered, whatever price it carries (a probe: a STOP buy sent with
  // `price: "1"` passed, then filled another team's offer when it fired).
  if (order.price === undefined || PRICELESS_TYPES.has(order.type) || rest.price === undefined) return true;
  return order.side === 'SIDE_BUY'
    ? Number(rest.price) <= Number(order.price)
    : Number(rest.price) >= Number(order.price);
}
