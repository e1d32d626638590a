import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import { InstrumentDirectory, type OrderRequest } from '@lib/exchange';
import type { ClosePosition, CreateOrder, ModifyOrder } from '@lib/retail';

import { type OrderOrigin, retailIntentOf } from './order-origins.service.js';
import { closingIntentOf, yesPriceOf, yesSideOf } from './retail-book-side.js';
import { slippageWorst } from './retail-slippage.js';
import { marketUnknown } from './risk.error.js';
import { RetailOrderView } from './retail-order-view.service.js';
import {
  RETAIL_KNOWN_WAIT_MS,
  type JudgedFor,
  SelfTradeGuard,
  crossesRetail,
  retailOrdersUnknown,
  selfTradeRefusal,
} from './self-trade.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * Cross-team self-trade prevention on the retail surface (issue 26, `risk.crossTeamSelfTrade: reject`):
 * a retail create that would cross a resting order of another of the firm's retail accounts, or of any
 * of the firm's exchange participants (one book per market on this venue: a retail slug is the exchange
 * symbol), is refused, as an exchange order crossing another participant's is (the same problem). The
 * other retail accounts' resting orders are the gateway's own view of them (RetailOrderView: the
 * private order channel it holds per account, plus the creates it answered): no upstream budget; while
 * an account's orders are not known (no snapshot yet, or a dropped channel) the create is refused 503
 * (fail closed). The participants' are judged as an exchange order's are (SelfTradeGuard: only an order
 * the streamed book shows would execute at once, against the open-orders snapshot). A close-position is
 * judged as the market sell of the account's position it is (its side from RetailPositionBook).
 */
@Injectable()
export class RetailSelfTrade {
  private readonly policy: 'off' | 'reject';
  private readonly scale: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly view: RetailOrderView,
    private readonly exchange: SelfTradeGuard,
    private readonly directory: InstrumentDirectory,
  ) {
    this.policy = config.risk.crossTeamSelfTrade;
    this.scale = config.risk.exchangePriceScale;
  }

  async check(by: JudgedFor, account: string, order: CreateOrder, path = 'body'): Promise<void> {
    // A post-only order is rejected rather than matched: it never trades with anything.
    if (this.policy === 'off' || order.participateDontInitiate) return;
    const side = yesSideOf(order.intent);
    const yes = yesLimitOf(order, this.directory.heldTickOf(order.marketSlug));
    for (const other of this.view.accounts.filter((name) => name !== account)) {
      const resting = await this.view.resting(other, order.marketSlug, RETAIL_KNOWN_WAIT_MS);
      if (!resting) throw retailOrdersUnknown(other, path);
      const crossed = resting.find((rest) => crossesRetail(side, yes, rest));
      if (crossed) throw selfTradeRefusal(order.marketSlug, crossed.retailPrice, path);
    }
    await this.exchange.againstParticipants(by, undefined, this.asExchangeOrder(order, side, yes), path);
  }

  /**
   * A modify that sets a new price (judged against its new values): the order at that price, with its
   * own intent and market as its create named them (`origin`, OrderOrigins), is judged as a create. An
   * order whose intent is not known cannot be judged: refused (fail closed) while the policy is on.
   */
  async checkReprice(
    by: JudgedFor,
    account: string,
    orderId: string,
    modify: ModifyOrder,
    origin: OrderOrigin | undefined,
    path = 'body',
  ): Promise<void> {
    if (this.policy === 'off' || modify.price === undefined) return;
    const intent = origin && retailIntentOf(origin);
    if (!origin || !intent)
      throw marketUnknown(orderId, 'cross-team self-trade prevention (risk.crossTeamSelfTrade: reject) is on', path);
    await this.check(
      by,
      account,
      {
        marketSlug: origin.market,
        intent,
        type: 'ORDER_TYPE_LIMIT',
        price: modify.price,
        quantity: modify.quantity ?? origin.qty ?? 1,
        ...(modify.participateDontInitiate ? { participateDontInitiate: true } : {}),
      },
      path,
    );
  }

  /**
   * A close-position: a market order on the side that reduces the account's position in the market
   * (SELL_LONG of a long, SELL_SHORT of a NO holding, as the upstream closes it), judged as a market
   * create of that intent, of the whole position: it crosses any resting order of another firm account
   * or participant on the other side (up to its tolerance's worst price, when it carries one: the
   * client's, or the band's stamped). Flat: nothing to close, the upstream answers. `net()` (the account's net position, from
   * its position channel) not known: refused 503 (fail closed).
   */
  async checkClose(
    by: JudgedFor,
    account: string,
    close: ClosePosition,
    net: () => Promise<number | undefined>,
    path = 'body',
  ): Promise<void> {
    if (this.policy === 'off') return;
    const position = await net();
    if (position === undefined) throw closeSideUnknown(account, path);
    const intent = closingIntentOf(position);
    if (!intent) return;
    await this.check(
      by,
      account,
      {
        marketSlug: close.marketSlug,
        intent,
        type: 'ORDER_TYPE_MARKET',
        quantity: Math.abs(position),
        ...(close.slippageTolerance ? { slippageTolerance: close.slippageTolerance } : {}),
      },
      path,
    );
  }

  /** The create as an order on the exchange's book of the same market: its YES side and price (a market order: no price). */
  private asExchangeOrder(order: CreateOrder, side: 'buy' | 'sell', yes: number | undefined): OrderRequest {
    return {
      symbol: order.marketSlug,
      side: side === 'buy' ? 'SIDE_BUY' : 'SIDE_SELL',
      // No price: a market order, which crosses any resting order on the other side.
      ...(yes === undefined
        ? {}
        : { type: 'ORDER_TYPE_LIMIT' as const, price: String(Math.round(yes * 10 ** this.scale)) }),
    };
  }
}

/**
 * How far a retail create reaches on the YES book: a limit's price; a market order's worst price under
 * its slippage tolerance (the client's, or the band's stamped one; with the market's tick when the
 * instrument list held now names it, else unrounded, and at the bound when it names ticks: never nearer
 * than the exchange's); undefined for an unbounded market order (crosses any).
 */
function yesLimitOf(order: CreateOrder, tick: number | undefined): number | undefined {
  if (order.type !== 'ORDER_TYPE_MARKET' && order.price) return yesPriceOf(order.intent, Number(order.price.value));
  if (order.type === 'ORDER_TYPE_MARKET' && order.slippageTolerance)
    return slippageWorst(order.intent, order.slippageTolerance, tick).price;
  return undefined;
}

/** Fail closed: a close-position's side is the account's position, not known on this instance. */
function closeSideUnknown(account: string, path: string): DomainError {
  return new DomainError(
    ErrorCode.RISK_POSITION_UNKNOWN,
    `The net position of retail account ${account} is not known on this instance (its position channel has not delivered): a close-position's side, and so whether it would trade with another of the firm's accounts (risk.crossTeamSelfTrade: reject), cannot be judged; nothing was sent.`,
    { extensions: { order: path }, headers: { 'Retry-After': '1' } },
  );
}
