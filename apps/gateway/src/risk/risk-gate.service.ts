import { Injectable } from '@nestjs/common';
import { ErrorCode } from '@lib/core';
import type { BudgetedReply } from '@lib/ratelimit';
import { entersOrders, guardUpstreamSend } from '@lib/upstream';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import type { OrderTerms } from './order-terms.js';
import { MarketEvents } from './market-events.service.js';
import { closeSizeUnknown, limitRefusal, marketUnknown, quantityUnknown, tradingStateRefusal } from './risk.error.js';
import { RejectBreaker } from './reject-breaker.service.js';
import type { RiskLimits } from './risk-limits.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';
import { TradingStates } from './trading-states.service.js';

/** A participant's signed net position in a market (positive long) and what its open orders there still buy and sell. */
export interface Holding {
  net: number;
  openBuys: number;
  openSells: number;
}

/** The caller's holding in a market, read only when a reduce-only state needs it. */
export type PositionOf = (market: string) => Promise<Holding>;

/** Throws the refusal of admitted orders a trading state latched since then stops; run right before their send. */
export type SendCheck = () => void;

/**
 * Runs an admitted order's `send` with each of its order-entering tries (not a read, not a cancel)
 * checked by `check` right before it leaves, after its budget wait: a refusal there sends nothing and
 * gives the budget back (UpstreamCalls). Issue 26: a halt latched while an order queued stops it.
 */
export function checkedAtSend(check: SendCheck, send: () => Promise<BudgetedReply>): Promise<BudgetedReply> {
  return guardUpstreamSend((attempt) => {
    if (entersOrders(attempt)) check();
  }, send);
}

/** One check's outcome, for the what-if route. */
export interface CheckOutcome {
  check: string;
  passed: boolean;
  detail?: string;
}

/**
 * The order path's trading-state and static risk checks (architecture "Order safety" steps 3 and 4),
 * run after validation and before any budget is spent: reads only local memory (states pushed from
 * Redis, limits from RiskLimitsSource), except a reduce-only state, which needs the position.
 */
@Injectable()
export class RiskGate {
  constructor(
    private readonly source: RiskLimitsSource,
    private readonly states: TradingStates,
    private readonly breaker: RejectBreaker,
    private readonly events: MarketEvents,
  ) {}

  /** The limits in force now (RiskLimitsSource: config's, or the admin set latched for the fleet). */
  get limits(): RiskLimits {
    return this.source.current();
  }

  /**
   * Throws the first refusal (a problem naming the limit or state and the order); every order of a batch
   * is checked. Answers the orders' send-time check (atSend), to run right before they are sent.
   */
  async admit(client: AuthenticatedClient, orders: readonly OrderTerms[], positionOf?: PositionOf): Promise<SendCheck> {
    // Fail closed while the latched states are unknown here; then the client's reject breaker (reject-breaker.service.ts).
    this.states.assertKnown(orders[0]?.path ?? 'body');
    this.breaker.check(client, orders[0]?.path ?? 'body');
    const reducing: boolean[] = [];
    // What the batch's earlier orders already take off the position: siblings reduce together, not each alone.
    const taken = new Map<string, number>();
    for (const order of orders) reducing.push(await this.admitOne(client, order, positionOf, taken));
    return () => this.atSend(client, orders, reducing);
  }

  /** Whether the order was found to reduce exposure (a reduce-only state asked, or its terms say so). */
  private async admitOne(
    client: AuthenticatedClient,
    order: OrderTerms,
    positionOf: PositionOf | undefined,
    taken: Map<string, number>,
  ): Promise<boolean> {
    if (order.marketUnknown) this.unknownMarket(client, order);
    const record = this.states.verdict(client, order.market);
    if (record && record.state !== 'reduce-only') throw tradingStateRefusal(record, order.path);
    this.checkLimits(client, order, await this.events.of(order.market, order.path));
    if (record?.state !== 'reduce-only') return order.reduces === 'yes';
    if (!(await this.reduces(order, positionOf, taken)))
      throw tradingStateRefusal(record, order.path, undefined, order.closes);
    return true;
  }

  /**
   * The orders a reduce-only state judges by their position now: their markets, and their judgement again
   * against a fresh read of the position, to run right before their send while they hold those markets
   * (ReducingLocks), so that two of them judged at once do not both pass against the same position.
   */
  reducingByPosition(
    client: AuthenticatedClient,
    orders: readonly OrderTerms[],
  ): { markets: string[]; again(positionOf: PositionOf): Promise<void> } | undefined {
    const judged = orders.filter(
      (order) =>
        order.reduces === 'by-position' &&
        order.market !== undefined &&
        this.states.verdict(client, order.market)?.state === 'reduce-only',
    );
    if (judged.length === 0) return undefined;
    return {
      markets: judged.map((order) => order.market!),
      again: async (positionOf) => {
        const taken = new Map<string, number>();
        for (const order of judged) {
          // Lifted since: nothing to judge; halted since: the send-time check refuses it.
          const record = this.states.verdict(client, order.market);
          if (record?.state !== 'reduce-only') continue;
          if (!(await this.reduces(order, positionOf, taken)))
            throw tradingStateRefusal(record, order.path, undefined, order.closes);
        }
      },
    };
  }

  /**
   * The trading states again, right before the send (after the budget wait: a halt latched while the
   * order queued stops it). Synchronous, local memory only: a reduce-only state passes an order admit
   * found reducing, or whose terms can only reduce; one latched since admit is not read against the
   * position again (that would be an upstream read between budget and send), so it refuses the rest.
   */
  private atSend(client: AuthenticatedClient, orders: readonly OrderTerms[], reducing: readonly boolean[]): void {
    this.states.assertKnown(orders[0]?.path ?? 'body');
    for (const [i, order] of orders.entries()) {
      if (order.marketUnknown) this.unknownMarket(client, order);
      const record = this.states.verdict(client, order.market);
      if (record && (record.state !== 'reduce-only' || !reducing[i]))
        throw tradingStateRefusal(record, order.path, 'send');
    }
  }

  /**
   * An order whose market is not known (a replace of an order the gateway has not seen): refused when a
   * state latched on some market, or a quantity or notional limit narrowed to one, could refuse it there.
   */
  private unknownMarket(client: AuthenticatedClient, order: OrderTerms): void {
    const record = this.states.anyMarket();
    if (record && (record.state !== 'reduce-only' || order.reduces !== 'yes'))
      throw marketUnknown(order.orderId, `trading is ${record.state} at scope ${record.scope}`, order.path);
    const narrowed = [
      ['maxOrderQty', order.qty],
      ['maxOrderNotional', order.notional],
    ] as const;
    const narrowedNotional = order.qtyUnknown ? this.limits.tightestNarrowed('maxOrderNotional', client) : undefined;
    if (narrowedNotional) throw quantityUnknown(order, narrowedNotional);
    for (const [name, observed] of narrowed) {
      const limit = observed === undefined ? undefined : this.limits.tightestNarrowed(name, client);
      if (limit && observed! > limit.value) {
        const where = limit.market ?? `event ${limit.event}`;
        throw marketUnknown(
          order.orderId,
          `${name} ${limit.value} is set for ${where} at scope ${limit.scope}`,
          order.path,
        );
      }
    }
  }

  /** `event`: the order's market's event, for limits narrowed to one (MarketEvents). */
  checkLimits(client: AuthenticatedClient, order: OrderTerms, event?: string): void {
    const qtyLimit = this.limits.binding('maxOrderQty', client, order.market, event);
    // A close whose size is not known fails closed where a limit could refuse it, as the net-position limit does with a position not known.
    const sizeLimit = order.sizeUnknown
      ? (qtyLimit ?? this.limits.binding('maxOrderNotional', client, order.market, event))
      : undefined;
    if (sizeLimit) throw closeSizeUnknown(sizeLimit, order.path);
    const qty = order.qty ?? order.mostQty; // a cash order: the most contracts its amount buys, at the lowest price
    if (qtyLimit && qty !== undefined && qty > qtyLimit.value) {
      const what = order.qty === undefined ? 'Order quantity (a cash order, at the lowest price)' : 'Order quantity';
      throw limitRefusal(ErrorCode.RISK_MAX_QUANTITY, what, qtyLimit, qty, order.path);
    }
    const notionalLimit = this.limits.binding('maxOrderNotional', client, order.market, event);
    if (notionalLimit && order.qtyUnknown) throw quantityUnknown(order, notionalLimit);
    if (notionalLimit && order.notional !== undefined && order.notional > notionalLimit.value) {
      throw limitRefusal(
        ErrorCode.RISK_MAX_NOTIONAL,
        'Order notional (USD, worst case)',
        notionalLimit,
        round(order.notional),
        order.path,
      );
    }
  }

  /**
   * An order reduces exposure when it is known to, or when it trades against the position and no further
   * than flat once every open order on its side there (and the batch's earlier orders) has traded too:
   * five sells of 10 against a long 10 are not each reducing.
   */
  private async reduces(
    order: OrderTerms,
    positionOf: PositionOf | undefined,
    taken: Map<string, number>,
  ): Promise<boolean> {
    if (order.reduces !== 'by-position') return order.reduces === 'yes';
    const known = order.positionSide ?? order.side;
    if (!positionOf || order.market === undefined) return false;
    if (!order.closes && (order.qty === undefined || known === undefined)) return false;
    const { net, openBuys, openSells } = await positionOf(order.market);
    // A close sells the whole position it meets (a NO holding: sells NO, buys YES), read here with its open orders.
    const side = order.closes ? (net < 0 ? 'buy' : 'sell') : known!;
    const qty = order.closes ? Math.abs(net) : order.qty!;
    if (order.closes && qty === 0) return true; // a close of a flat position sells nothing
    const key = `${side}\n${order.market}`;
    const ahead = (side === 'sell' ? openSells : openBuys) + (taken.get(key) ?? 0);
    const room = side === 'sell' ? net - ahead : -net - ahead;
    if (qty > room) return false;
    taken.set(key, (taken.get(key) ?? 0) + qty);
    return true;
  }
}

/** Cents are enough to name an observed notional. */
const round = (dollars: number) => Math.round(dollars * 100) / 100;
