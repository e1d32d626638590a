import { Inject, Injectable } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import { MarketDataStreams, type OrderRequest } from '@lib/exchange';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { type BandRules, type BookSeen, isAggressive, referenceOf, touch } from './price-band.js';
import type { RiskLimits } from './risk-limits.js';

/** Dollars to the cent, enough to name a band, a reference and a price. */
const cents = (dollars: number) => Math.round(dollars * 10_000) / 10_000;

/**
 * The price band (issue 26): an exchange order that would execute at once must be priced within the
 * tightest configured `priceBand` of the reference taken from the gateway's own streamed book. Orders
 * with no band configured read nothing; a resting order is never refused here.
 */
@Injectable()
export class PriceBand {
  private readonly rules: BandRules;
  private readonly maxAgeMs: number;
  private readonly scale: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly streams: MarketDataStreams,
    private readonly clock: Clock,
  ) {
    this.rules = { tightSpread: config.risk.tightSpread };
    this.maxAgeMs = config.risk.maxReferenceAgeMs;
    this.scale = config.risk.exchangePriceScale;
  }

  async check(limits: RiskLimits, client: AuthenticatedClient, order: OrderRequest, path: string): Promise<void> {
    const band = limits.binding('priceBand', client, order.symbol);
    if (!band) return;
    const book: BookSeen | undefined = await this.streams.read(order.symbol).catch(() => undefined);
    if (!isAggressive(order, book, this.scale)) return;
    const now = this.clock.now(); // the streamed book's receivedAt is steady too
    const reference = book ? referenceOf(book, this.rules, now) : undefined;
    if (!reference || reference.ageMs > this.maxAgeMs) {
      const why = !book
        ? 'no live streamed book'
        : !reference
          ? 'the book has neither a tight two-sided quote nor a last trade'
          : `the book was last heard ${reference.ageMs} ms ago`;
      throw new DomainError(
        ErrorCode.RISK_REFERENCE_STALE,
        `No fresh reference price for ${order.symbol} (${why}; at most ${this.maxAgeMs} ms allowed): an order that would execute at once is refused, a resting one is not; nothing was sent.`,
        {
          extensions: {
            symbol: order.symbol,
            maxAgeMs: this.maxAgeMs,
            ...(reference ? { reference: cents(reference.price), referenceAgeMs: reference.ageMs } : {}),
            order: path,
          },
        },
      );
    }
    const price = this.executionPrice(order, book);
    if (price === undefined) return;
    const low = reference.price - band.value;
    const high = reference.price + band.value;
    if (price >= low - 1e-9 && price <= high + 1e-9) return;
    throw new DomainError(
      ErrorCode.RISK_PRICE_BAND,
      `Price ${cents(price)} is outside the band ${cents(low)}–${cents(high)} (±${band.value} around the ${reference.source} ${cents(reference.price)}) set at scope ${band.scope}; nothing was sent.`,
      {
        extensions: {
          limit: band.value,
          band: { low: cents(low), high: cents(high) },
          reference: cents(reference.price),
          referenceSource: reference.source,
          observed: cents(price),
          scope: band.scope,
          ...(band.market ? { market: band.market } : {}),
          order: path,
        },
      },
    );
  }

  /** The order's limit price in dollars, or for a market order the touch it would take; undefined when nothing is there to take. */
  private executionPrice(order: OrderRequest, book: BookSeen | undefined): number | undefined {
    if (order.price !== undefined && order.type !== 'ORDER_TYPE_MARKET_TO_LIMIT')
      return Number(order.price) / 10 ** this.scale;
    if (!book) return undefined;
    const { bid, ask } = touch(book.update);
    const px = order.side === 'SIDE_BUY' ? ask : bid;
    return px === undefined ? undefined : px / 10 ** book.update.priceScale;
  }
}
