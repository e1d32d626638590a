import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '@lib/core';
import type { OrderRequest } from '@lib/exchange';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { MarketEvents } from './market-events.service.js';
import type { OpenOrderCount, OrderExposure } from './open-orders.store.js';
import { exchangeOrderExposure } from './order-terms.js';
import { PositionBook } from './position-book.service.js';
import { RetailPositionBook } from './retail-position-book.service.js';
import { RiskGate } from './risk-gate.service.js';
import { type ExposureCount, matchesPattern } from './risk-limits.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * Open notional and net position (issue 26 item 1): what an order adds to the exposure counts, and the
 * counts it falls under, each position count carrying the scope's current net position: the sum over the
 * participants the scope's clients use (firm: every configured participant) and its retail accounts of
 * their net positions in the count's markets (a symbol, a prefix, or every market of an event), from the
 * position streams the gateway holds (PositionBook, RetailPositionBook; unknown positions refuse, never
 * a REST read).
 */
@Injectable()
export class Exposure {
  private readonly scale: number;
  private readonly participants = new Map<string, readonly string[]>();
  private readonly retailAccounts = new Map<string, readonly string[]>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly gate: RiskGate,
    private readonly book: PositionBook,
    private readonly events: MarketEvents,
    private readonly retailBook: RetailPositionBook,
  ) {
    this.scale = config.risk.exchangePriceScale;
    const add = (scope: string, participant: string) =>
      this.participants.set(scope, [...new Set([...(this.participants.get(scope) ?? []), participant])]);
    for (const client of config.clients) {
      for (const participant of client.participants)
        for (const scope of ['firm', `team:${client.team}`, `client:${client.id}`]) add(scope, participant);
      for (const account of client.retailAccounts)
        for (const scope of ['firm', `team:${client.team}`, `client:${client.id}`])
          this.retailAccounts.set(scope, [...new Set([...(this.retailAccounts.get(scope) ?? []), account])]);
    }
  }

  /**
   * Every count an order on `market` (of `event`) falls under, exchange insert and retail create alike:
   * open orders, open notional, and net position starting from the scope's whole net position in its
   * markets on the venue's one book: its participants' (exchange position stream) plus its retail
   * accounts' (retail position channel). Waits up to `settleMs` for the retail positions of a freshly
   * started instance.
   */
  async counts(
    client: AuthenticatedClient,
    market: string,
    event: string | undefined,
    path: string,
    settleMs = 1_000,
  ): Promise<OpenOrderCount[]> {
    const exposure = this.gate.limits.exposureCounts(client, market, event);
    const positions = exposure.filter((count) => count.kind === 'position');
    const accounts = [...new Set(positions.flatMap((count) => this.retailAccounts.get(count.scope) ?? []))];
    if (accounts.length > 0) await this.retailBook.settle(accounts, settleMs);
    const counted = exposure.map((count) =>
      count.kind === 'position' ? { ...count, position: this.wholePosition(count, path) } : count,
    );
    return [...this.gate.limits.openOrderScopes(client, market, event), ...counted];
  }

  private wholePosition(count: ExposureCount, path: string): number {
    const participants = this.participants.get(count.scope) ?? [];
    const exchange = participants.length === 0 ? 0 : this.position(count, path);
    return exchange + this.retailBook.sum(this.retailAccounts.get(count.scope) ?? [], this.inMarket(count), path);
  }

  /** What the order adds: its side, contracts (a cash order: its amount at the lowest tick, the most it could buy) and worst-case notional. */
  of(order: OrderRequest): OrderExposure {
    return exchangeOrderExposure(order, this.scale);
  }

  private position(count: ExposureCount, path: string): number {
    return this.book.sum(this.participants.get(count.scope) ?? [], this.inMarket(count), path);
  }

  /** The markets a position count adds up: its event's, or those its market pattern names. */
  private inMarket(count: ExposureCount): (symbol: string) => boolean {
    return count.event !== undefined
      ? (symbol: string) => this.events.held(symbol) === count.event
      : (symbol: string) => matchesPattern(count.market!, symbol);
  }
}
