import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG } from '@lib/core';
import { OrderUpdates, PositionChanges, type PositionHolder } from '@lib/exchange';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

type Snapshot = Parameters<PositionHolder['positions']>[1];

/** Signed contracts per symbol (positive long) from one participant's folded positions. */
function netOf(snapshot: Snapshot): Map<string, number> {
  const net = new Map<string, number>();
  for (const position of snapshot.positions) {
    const value = Number(position.netPosition);
    if (Number.isFinite(value)) net.set(position.symbol, value);
  }
  return net;
}

/**
 * The firm's net positions as the exchange streams them (issue 26: "from the order, drop-copy and
 * position streams the gateway already holds"), for the net-position limit: no REST read on the order
 * path. Held only while some limit names `maxNetPosition`: then this instance holds the position-change
 * feed (one call per instance, shared with the `exchange.positions.*` topics) and the order stream (its
 * fills and closes move quantity from the open counts to the position; see OpenOrderFills). Until the
 * feed has delivered, or after it was lost, a position is unknown and `net` throws
 * RISK_POSITION_UNKNOWN (fail closed: the order is refused, nothing is sent).
 */
@Injectable()
export class PositionBook implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PositionBook.name);
  private readonly wanted: boolean;
  private readonly net = new Map<string, Map<string, number>>();
  /** Why positions are not known now; undefined once the feed delivered. */
  private unknown: string | undefined = 'the position feed has not delivered yet';
  private readonly releases: (() => void)[] = [];

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly feed: PositionChanges,
    private readonly orders: OrderUpdates,
  ) {
    this.wanted = config.risk.limits.some((limit) => limit.maxNetPosition !== undefined);
  }

  onModuleInit(): void {
    if (!this.wanted) return;
    const holder: PositionHolder = {
      known: (state) => {
        this.net.clear();
        for (const [participant, snapshot] of state) this.net.set(participant, netOf(snapshot));
        if (this.unknown !== undefined) this.logger.log('net positions known from the position feed');
        this.unknown = undefined;
      },
      positions: (participant, snapshot) => {
        this.net.set(participant, netOf(snapshot));
      },
      lost: (reason) => {
        if (this.unknown === undefined)
          this.logger.warn(
            `net positions unknown (${reason}): orders under a net-position limit are refused until the feed is back`,
          );
        this.unknown = reason;
      },
    };
    this.releases.push(this.feed.hold(holder), this.orders.hold());
  }

  onModuleDestroy(): void {
    for (const release of this.releases.splice(0)) release();
  }

  /**
   * The summed net position of `participants` in the markets `inMarket` accepts, or the refusal when
   * positions are not known here (`path`: the order it refuses).
   */
  sum(participants: readonly string[], inMarket: (symbol: string) => boolean, path: string): number {
    if (this.unknown !== undefined) {
      throw new DomainError(
        ErrorCode.RISK_POSITION_UNKNOWN,
        `Net positions are not known on this instance (${this.unknown}): an order under a net-position limit is refused; nothing was sent.`,
        {
          extensions: { order: path },
          headers: { 'Retry-After': '1' },
        },
      );
    }
    let total = 0;
    for (const participant of participants)
      for (const [symbol, net] of this.net.get(participant) ?? []) if (inMarket(symbol)) total += net;
    return total;
  }
}
