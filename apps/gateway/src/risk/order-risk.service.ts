import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import {
  type AccountCallerContext,
  type BatchInsertRequest,
  type BatchReplaceRequest,
  ExchangeAccounts,
  ExchangeTrading,
  type OrderRequest,
} from '@lib/exchange';
import type { BudgetedReply } from '@lib/ratelimit';
import {
  type ClosePosition,
  type CreateOrder,
  type ModifyOrder,
  type OrderIntent,
  RetailOrders,
  RetailPortfolio,
} from '@lib/retail';
import { jsonOrUndefined } from '@lib/upstream';
import { z } from 'zod';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import {
  exchangeOrderTerms,
  exchangeReplaceTerms,
  retailCloseTerms,
  retailModifyTerms,
  retailOrderTerms,
  type OrderTerms,
} from './order-terms.js';
import { type OpenOrder, OpenOrdersSchema } from './open-order-attribution.service.js';
import { OpenOrders } from './open-orders.service.js';
import { type OrderOrigin, OrderOrigins, retailIntentOf } from './order-origins.service.js';
import { OrderReservations } from './order-reservations.service.js';
import { OrderThrottle } from './order-throttle.service.js';
import { PriceBand } from './price-band.service.js';
import { type Reading, ReducingLocks } from './reducing-locks.service.js';
import { ReplaceReservations } from './replace-reservations.service.js';
import { closingIntentOf } from './retail-book-side.js';
import { RetailPositionBook } from './retail-position-book.service.js';
import { RetailReservations } from './retail-reservations.service.js';
import { RetailSelfTrade } from './retail-self-trade.service.js';
import { RETAIL_KNOWN_WAIT_MS, SelfTradeGuard } from './self-trade.service.js';
import { notEntitled } from './risk.error.js';
import { type Holding, type PositionOf, RiskGate, type SendCheck, checkedAtSend } from './risk-gate.service.js';
import { RiskMetrics } from './risk.metrics.js';
import type { ClientConfig, GatewayConfig } from '../config/gateway-config.schema.js';

/** An order past the stateless checks: the request as it will be sent, and its counted step, to run inside the order path's send. */
export interface Admitted<T> {
  readonly request: T;
  send(send: (request: T) => Promise<BudgetedReply>): Promise<BudgetedReply>;
}

const PositionsSchema = z.looseObject({
  positions: z.array(z.looseObject({ symbol: z.string(), netPosition: z.string() })).default([]),
});
const RetailPositionsSchema = z.looseObject({
  positions: z.record(z.string(), z.looseObject({ netPosition: z.union([z.string(), z.number()]) })).default({}),
});
const RetailOpenOrdersSchema = z.looseObject({
  orders: z.array(z.looseObject({ intent: z.string(), leavesQuantity: z.union([z.string(), z.number()]) })).default([]),
});
/** Retail intents that sell YES on the market's one book (a NO buy sells YES); the others buy it. */
const SELLS_YES: ReadonlySet<string> = new Set<OrderIntent>(['ORDER_INTENT_SELL_LONG', 'ORDER_INTENT_BUY_SHORT']);

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
    private readonly reservations: OrderReservations,
    private readonly retail: RetailReservations,
    private readonly replaces: ReplaceReservations,
    private readonly retailSelfTrade: RetailSelfTrade,
    private readonly origins: OrderOrigins,
    private readonly trading: ExchangeTrading,
    private readonly retailPositions: RetailPositionBook,
    private readonly retailPortfolio: RetailPortfolio,
    private readonly retailOrders: RetailOrders,
    private readonly locks: ReducingLocks,
  ) {
    this.clients = new Map(config.clients.map((client) => [client.id, client]));
    this.scale = config.risk.exchangePriceScale;
  }

  /**
   * What-if: the insert as it would be sent, or the refusal; nothing reserved, nothing sent. The counted
   * limits (open orders, open notional, net position) are read as a send would meet them now.
   */
  async exchangeCheck(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    order: OrderRequest,
  ): Promise<OrderRequest> {
    const { policed } = await this.exchangeStateless(client, caller, order);
    await this.reservations.judge(client, [policed], ['body']);
    return policed;
  }

  /** The checks of an insert that count nothing: field policing, states and limits, price band, self-trade. */
  private async exchangeStateless(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    order: OrderRequest,
  ): Promise<{ policed: OrderRequest; check: SendCheck; reading: Reading }> {
    const policed = this.policeExchange(client, order, 'body');
    const reading = this.locks.reading(caller.participant, this.positions(caller));
    const check = await this.gate.admit(client, [exchangeOrderTerms(policed, this.scale)], reading.positionOf);
    await this.band.check(this.gate.limits, client, policed, 'body');
    await this.selfTrade.check(client, caller.participant, policed, 'body');
    return { policed, check, reading };
  }

  /**
   * The stateless checks of an insert (throttle, field policing, states and limits, price band, self-trade),
   * run before the order path claims the idempotency key: a refusal costs no journal write. The answer
   * carries the counted step (open-order slots, the send, the bind) to run inside the order path's send.
   */
  async exchangeInsert(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    order: OrderRequest,
  ): Promise<Admitted<OrderRequest>> {
    const { policed, check, reading } = await this.counted(client, async () => {
      await this.throttle.take(client);
      return this.exchangeStateless(client, caller, order);
    });
    return {
      request: policed,
      send: (send) =>
        this.counted(client, () =>
          this.reducing(
            client,
            caller.participant,
            [exchangeOrderTerms(policed, this.scale)],
            reading,
            () => this.positions(caller),
            () =>
              this.reservations.send(client, caller, [policed], ['body'], false, async () =>
                this.band.answered(
                  this.gate.limits,
                  client,
                  caller.participant,
                  [policed],
                  await checkedAtSend(check, () => send(policed)),
                ),
              ),
          ),
        ),
    };
  }

  async exchangeBatch(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    batch: BatchInsertRequest,
  ): Promise<Admitted<BatchInsertRequest>> {
    const { requests, check, reading } = await this.counted(client, () => this.batchChecked(client, caller, batch));
    const paths = requests.map((_, i) => `body.requests.${i}`);
    return {
      request: { requests },
      send: (send) =>
        this.counted(client, () =>
          this.reducing(
            client,
            caller.participant,
            requests.map((order, i) => exchangeOrderTerms(order, this.scale, paths[i])),
            reading,
            () => this.positions(caller),
            () =>
              this.reservations.send(client, caller, requests, paths, true, async () =>
                this.band.answered(
                  this.gate.limits,
                  client,
                  caller.participant,
                  requests,
                  await checkedAtSend(check, () => send({ requests })),
                ),
              ),
          ),
        ),
    };
  }

  /**
   * A batch replace: the stateless checks against the new values now; inside the send, each counted
   * order's share of the open notional and net position moves to its new terms (ReplaceReservations).
   */
  async exchangeReplace(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    batch: BatchReplaceRequest,
  ): Promise<Admitted<BatchReplaceRequest>> {
    const { checked, check } = await this.counted(client, () => this.replaceChecked(client, caller, batch));
    return {
      request: checked,
      send: (send) =>
        this.counted(client, () =>
          this.replaces.send(client, caller, checked.requests, () => checkedAtSend(check, () => send(checked))),
        ),
    };
  }

  /**
   * A retail create of `account`: the stateless checks (throttle, states, limits, field policing,
   * self-trade) now; the counted step (open orders, open notional: RetailReservations) inside the send.
   */
  async retailCreate(client: AuthenticatedClient, account: string, order: CreateOrder): Promise<Admitted<CreateOrder>> {
    const { stamped, check, reading } = await this.counted(client, () =>
      this.retailCreateChecked(client, account, order),
    );
    return this.retailAdmitted(client, account, stamped, retailOrderTerms(stamped), reading, (send) =>
      this.retail.send(client, account, stamped, () => checkedAtSend(check, () => send(stamped))),
    );
  }

  /** A retail modify: judged against its new values now; inside the send, its order's share of the exposure counts moves to them (RetailReservations). */
  async retailModify(
    client: AuthenticatedClient,
    account: string,
    orderId: string,
    modify: ModifyOrder,
  ): Promise<Admitted<ModifyOrder>> {
    let others = false;
    const check = await this.counted(client, async () => {
      await this.throttle.take(client);
      // A new price is judged at the order's side and, alone, at its quantity, as its create named them; only the account's own order counts.
      const origin = await this.origins.retail(orderId);
      const own = origin && (origin.owner === undefined || origin.owner === account) ? origin : undefined;
      // Another account's order (its create's record names that account): the retail API answers it 404, and its share of the counts is not this call's to hold.
      others = origin !== undefined && own === undefined;
      const known = modify.price === undefined ? undefined : own && intentSide(own);
      const atSend = await this.gate.admit(client, [retailModifyTerms(modify, 'body', known)]);
      await this.band.checkModify(this.gate.limits, client, account, orderId, modify, 'body');
      await this.retailSelfTrade.checkReprice(
        client,
        account,
        orderId,
        modify,
        modify.price === undefined ? undefined : own,
        'body',
      );
      return atSend;
    });
    return {
      request: modify,
      send: (send) =>
        this.counted(client, () =>
          others
            ? checkedAtSend(check, () => send(modify))
            : this.retail.modify(client, account, orderId, modify, () => checkedAtSend(check, () => send(modify))),
        ),
    };
  }

  /** A retail close-position of `account`: the stateless checks now; the trading states again right before its send. */
  async retailClose(
    client: AuthenticatedClient,
    account: string,
    close: ClosePosition,
  ): Promise<Admitted<ClosePosition>> {
    const { stamped, check, reading } = await this.counted(client, () =>
      this.retailCloseChecked(client, account, close),
    );
    return this.retailAdmitted(client, account, stamped, retailCloseTerms(stamped), reading, (send) =>
      checkedAtSend(check, () => send(stamped)),
    );
  }

  /** A retail create or close past its stateless checks: `sent` runs under the reduce-only judgement of `account`'s holding (reducing). */
  private retailAdmitted<T>(
    client: AuthenticatedClient,
    account: string,
    request: T,
    terms: OrderTerms,
    reading: Reading,
    sent: (send: (request: T) => Promise<BudgetedReply>) => Promise<BudgetedReply>,
  ): Admitted<T> {
    return {
      request,
      send: (send) =>
        this.counted(client, () =>
          this.reducing(
            client,
            account,
            [terms],
            reading,
            () => this.retailHolding(client, account),
            () => sent(send),
          ),
        ),
    };
  }

  /** A cancel is never refused here; once the exchange accepted it, the order's open-order slot is given back. */
  async cancelled(orderId: string | undefined): Promise<void> {
    await this.open.closed(orderId);
  }

  /** A retail cancel-all was answered: the orders it cancelled give their slots back. Never throws. */
  async retailCancelledAll(answer: string): Promise<void> {
    await this.retail.cancelledAll(answer);
  }

  /**
   * `send`, for orders a reduce-only state judges by their position: judged again while they hold their
   * holder's markets on every instance (ReducingLocks), against a fresh read when a reducing order there
   * was sent since their first, so concurrent reducing orders are judged one after another; any other
   * order is sent as it is.
   */
  private reducing(
    client: AuthenticatedClient,
    holder: string,
    terms: readonly OrderTerms[],
    reading: Reading,
    fresh: () => PositionOf,
    send: () => Promise<BudgetedReply>,
  ): Promise<BudgetedReply> {
    const judged = this.gate.reducingByPosition(client, terms);
    if (!judged) return send();
    return this.locks.holding(holder, judged.markets, terms[0]?.path ?? 'body', reading, async (stale) => {
      // The first judgement's read still stands when no reducing order of the holder there was sent since it.
      await judged.again(stale ? fresh() : reading.positionOf);
      return send();
    });
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

  private async batchChecked(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    batch: BatchInsertRequest,
  ): Promise<{ requests: OrderRequest[]; check: SendCheck; reading: Reading }> {
    await this.throttle.take(client);
    const requests = batch.requests.map((order, i) => this.policeExchange(client, order, `body.requests.${i}`));
    const reading = this.locks.reading(caller.participant, this.positions(caller));
    const check = await this.gate.admit(
      client,
      requests.map((order, i) => exchangeOrderTerms(order, this.scale, `body.requests.${i}`)),
      reading.positionOf,
    );
    for (const [i, order] of requests.entries()) {
      await this.band.check(this.gate.limits, client, order, `body.requests.${i}`);
      await this.selfTrade.check(client, caller.participant, order, `body.requests.${i}`);
    }
    return { requests, check, reading };
  }

  private async replaceChecked(
    client: AuthenticatedClient,
    caller: AccountCallerContext,
    batch: BatchReplaceRequest,
  ): Promise<{ checked: BatchReplaceRequest; check: SendCheck }> {
    await this.throttle.take(client);
    const manualOrderIndicator = this.manual(client)
      ? 'MANUAL_ORDER_INDICATOR_MANUAL'
      : 'MANUAL_ORDER_INDICATOR_AUTOMATED';
    const requests = batch.requests.map((replace) => ({ ...replace, manualOrderIndicator }) as const);
    // Each item on its order's own market and side (the exchange ignores a replace's symbol): unknown, it fails closed where a market could matter.
    const origins = await Promise.all(requests.map((replace) => this.origins.exchange(replace.orderId)));
    const owned = origins.map((origin) =>
      origin && (origin.owner === undefined || origin.owner === caller.participant) ? origin : undefined,
    );
    const check = await this.gate.admit(
      client,
      requests.map((replace, i) => exchangeReplaceTerms(replace, this.scale, `body.requests.${i}`, owned[i])),
    );
    for (const [i, replace] of requests.entries()) {
      await this.band.checkReplace(this.gate.limits, client, caller.participant, replace, `body.requests.${i}`);
      await this.selfTrade.checkReprice(client, caller.participant, replace, owned[i], `body.requests.${i}`);
    }
    return { checked: { requests }, check };
  }

  private async retailCreateChecked(
    client: AuthenticatedClient,
    account: string,
    order: CreateOrder,
  ): Promise<{ stamped: CreateOrder; check: SendCheck; reading: Reading }> {
    await this.throttle.take(client);
    return this.retailStateless(client, account, order);
  }

  /** The checks of a retail create that count nothing: field policing, states and limits, self-trade. */
  private async retailStateless(
    client: AuthenticatedClient,
    account: string,
    order: CreateOrder,
  ): Promise<{ stamped: CreateOrder; check: SendCheck; reading: Reading }> {
    const stamped: CreateOrder = {
      ...order,
      manualOrderIndicator: this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATIC',
    };
    const reading = this.locks.reading(account, this.retailHolding(client, account));
    const check = await this.gate.admit(client, [retailOrderTerms(stamped)], reading.positionOf);
    // A market order leaves the band bounded: with a tolerance at the band's edge when it had none.
    const banded = await this.band.checkCreate(this.gate.limits, client, stamped, 'body');
    await this.retailSelfTrade.check(client, account, banded);
    return { stamped: banded, check, reading };
  }

  /**
   * What-if: the checks a retail create meets, as sent; not counted against the client's throttle. The
   * counted limits (open orders, open notional) are read as a send would meet them now.
   */
  async retailCheck(client: AuthenticatedClient, account: string, order: CreateOrder): Promise<CreateOrder> {
    const { stamped } = await this.retailStateless(client, account, order);
    await this.retail.judge(client, stamped);
    return stamped;
  }

  private async retailCloseChecked(
    client: AuthenticatedClient,
    account: string,
    close: ClosePosition,
  ): Promise<{ stamped: ClosePosition; check: SendCheck; reading: Reading }> {
    await this.throttle.take(client);
    const stamped: ClosePosition = {
      ...close,
      manualOrderIndicator: this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATIC',
    };
    // Its side and size are the account's position (read once, from the position channel, only if a check asks).
    let read: Promise<number | undefined> | undefined;
    const net = () => (read ??= this.retailPositions.net(account, close.marketSlug, RETAIL_KNOWN_WAIT_MS));
    // Judged as a sell of the whole position: the per-order limits bind a close as any order (README "Limits").
    const limits = this.gate.limits;
    const sized = limits.mayBind('maxOrderQty', client) || limits.mayBind('maxOrderNotional', client);
    // A reduce-only state reads the position and open orders from the retail API, as for a sell (retailHolding).
    const reading = this.locks.reading(account, this.retailHolding(client, account));
    const check = await this.gate.admit(
      client,
      [retailCloseTerms(stamped, 'body', sized ? await net() : undefined)],
      reading.positionOf,
    );
    const intent = limits.mayBind('priceBand', client) ? closingIntentOf(await net()) : undefined;
    const banded = await this.band.checkClose(limits, client, stamped, intent, 'body');
    await this.retailSelfTrade.checkClose(client, account, banded, net, 'body');
    return { stamped: banded, check, reading };
  }

  private policeExchange(client: AuthenticatedClient, order: OrderRequest, path: string): OrderRequest {
    if (
      order.ignorePriceValidityChecks &&
      !this.clients.get(client.id)?.entitlements.includes('ignorePriceValidityChecks')
    )
      throw notEntitled('ignorePriceValidityChecks', path);
    return {
      ...order,
      manualOrderIndicator: this.manual(client) ? 'MANUAL_ORDER_INDICATOR_MANUAL' : 'MANUAL_ORDER_INDICATOR_AUTOMATED',
    };
  }

  private manual(client: AuthenticatedClient): boolean {
    return this.clients.get(client.id)?.manualOrders ?? false;
  }

  /**
   * The retail account's net YES position in a market (a NO holding negative) and what its open orders
   * there still buy and sell of YES, read once (positions and open orders of that market, together) and
   * only if a reduce-only state asks; an answer that cannot be read refuses (fail closed, nothing sent).
   */
  private retailHolding(client: AuthenticatedClient, account: string): PositionOf {
    const caller = { account, team: client.team, client: client.id };
    let read: Promise<Holding> | undefined;
    return (market) =>
      (read ??= Promise.all([
        this.retailPortfolio.positions(caller, { market }),
        this.retailOrders.open(caller, { slugs: [market] }),
      ]).then(([positions, open]) => {
        const held = RetailPositionsSchema.safeParse(jsonOrUndefined(positions.text)).data;
        const orders = RetailOpenOrdersSchema.safeParse(jsonOrUndefined(open.text)).data;
        if (positions.status >= 300 || open.status >= 300 || !held || !orders) throw retailPositionUnknown(account);
        const holding = { net: Number(held.positions[market]?.netPosition ?? 0), openBuys: 0, openSells: 0 };
        for (const order of orders.orders) {
          if (SELLS_YES.has(order.intent)) holding.openSells += Number(order.leavesQuantity);
          else holding.openBuys += Number(order.leavesQuantity);
        }
        if (![holding.net, holding.openBuys, holding.openSells].every(Number.isFinite))
          throw retailPositionUnknown(account);
        return holding;
      }));
  }

  /**
   * The participant's net position per symbol and what its open orders there still buy and sell, read
   * once per request (positions and the open-orders snapshot, together) and only if a reduce-only state asks.
   */
  private positions(caller: AccountCallerContext): PositionOf {
    let read: Promise<{ nets: Map<string, number>; orders: OpenOrder[] }> | undefined;
    return async (market) => {
      read ??= Promise.all([this.accounts.positions(caller), this.trading.openOrders(caller)]).then(
        ([positions, open]) => ({
          nets: new Map(
            PositionsSchema.parse(JSON.parse(positions.text)).positions.map((p) => [p.symbol, Number(p.netPosition)]),
          ),
          orders: OpenOrdersSchema.parse(JSON.parse(open.text)).orders,
        }),
      );
      const { nets, orders } = await read;
      const holding = { net: nets.get(market) ?? 0, openBuys: 0, openSells: 0 };
      for (const order of orders) {
        if (order.symbol !== market) continue;
        const leaves = Number(order.leavesQty ?? order.orderQty ?? 0);
        if (order.side === 'SIDE_BUY') holding.openBuys += leaves;
        else if (order.side === 'SIDE_SELL') holding.openSells += leaves;
      }
      return holding;
    };
  }
}

/** The side a retail order's intent trades at (a buy of either outcome pays its price), and its quantity as known. */
function intentSide(origin: OrderOrigin): { qty?: number; side: 'buy' | 'sell' } {
  const side = retailIntentOf(origin)?.startsWith('ORDER_INTENT_BUY') ? 'buy' : 'sell';
  return { ...(origin.qty === undefined ? {} : { qty: origin.qty }), side };
}

const retailPositionUnknown = (account: string) =>
  new DomainError(
    ErrorCode.RISK_POSITION_UNKNOWN,
    `The position of retail account ${account} could not be read: under reduce-only a sell is refused; nothing was sent.`,
    { extensions: { order: 'body' }, headers: { 'Retry-After': '1' } },
  );
