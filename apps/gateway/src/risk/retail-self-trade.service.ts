import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import type { CreateOrder } from '@lib/retail';

import { yesPriceOf, yesSideOf } from './retail-book-side.js';
import { type RestingRetailOrder, RetailOrderView } from './retail-order-view.service.js';
import { selfTradeRefusal } from './self-trade.service.js';

/** How long a create waits for another account's open orders to become known (the channel's first snapshot) before it is refused. */
const KNOWN_WAIT_MS = 2_000;

/** Prices compared in millionths: a mirrored short price (1 − p) must not miss an equal one by a rounding error. */
const micros = (price: number) => Math.round(price * 1_000_000);

/**
 * Cross-team self-trade prevention on the retail surface (issue 26, `risk.crossTeamSelfTrade: reject`):
 * a retail create that would cross a resting order of another of the firm's retail accounts on the
 * same market is refused, as an exchange order crossing another participant's is (the same problem).
 * The other accounts' resting orders are the gateway's own view of them (RetailOrderView: the private
 * order channel it holds per account, plus the creates it answered), so the check spends no upstream
 * budget. While an account's orders are not known (no snapshot yet, or a dropped channel), orders that
 * could cross are refused 503 (fail closed).
 */
@Injectable()
export class RetailSelfTrade {
  private readonly policy: 'off' | 'reject';

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly view: RetailOrderView,
  ) {
    this.policy = config.risk.crossTeamSelfTrade;
  }

  async check(account: string, order: CreateOrder, path = 'body'): Promise<void> {
    // A post-only order is rejected rather than matched: it never trades with anything.
    if (this.policy === 'off' || order.participateDontInitiate) return;
    const others = this.view.accounts.filter((name) => name !== account);
    const side = yesSideOf(order.intent);
    const price = order.type === 'ORDER_TYPE_MARKET' || !order.price ? undefined : Number(order.price.value);
    const yes = yesPriceOf(order.intent, price);
    for (const other of others) {
      const resting = await this.view.resting(other, order.marketSlug, KNOWN_WAIT_MS);
      if (!resting) throw unknownOrders(other, path);
      const crossed = resting.find((rest) => crosses(side, yes, rest));
      if (crossed) throw selfTradeRefusal(order.marketSlug, crossed.retailPrice, path);
    }
  }
}

/** A YES buy crosses a resting YES sell priced at or under it, a sell a resting buy at or over it; an unpriced (market) order crosses any on the other side. */
function crosses(side: 'buy' | 'sell', price: number | undefined, rest: RestingRetailOrder): boolean {
  if (rest.side === side) return false;
  if (price === undefined || rest.price === undefined) return true;
  return side === 'buy' ? micros(rest.price) <= micros(price) : micros(rest.price) >= micros(price);
}

function unknownOrders(account: string, path: string): DomainError {
  return new DomainError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `The open orders of the firm's retail account ${account} are not known on this instance (its order channel is not held): a self-trade cannot be ruled out; nothing was sent.`,
    { extensions: { order: path }, headers: { 'Retry-After': '1' } },
  );
}
