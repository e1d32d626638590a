import { Inject, Injectable } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG } from '@lib/core';
import { InstrumentDirectory, MarketDataStreams, type OrderRequest, type ReplaceRequest } from '@lib/exchange';
import {
  type ClosePosition,
  type CreateOrder,
  type ModifyOrder,
  type OrderIntent,
  RetailMarketBooks,
} from '@lib/retail';

import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { MarketEvents } from './market-events.service.js';
import { type OrderOrigin, OrderOrigins, retailOrigin } from './order-origins.service.js';
import {
  type BandOrder,
  type BandRules,
  type Quote,
  type Reference,
  exchangeBandOrder,
  exchangeQuote,
  executionPrices,
  quoteReference,
  wouldExecute,
} from './price-band.js';
import { type ToleranceSeen, outsideBand, staleReference, unknownOrder } from './price-band.errors.js';
import { yesSideOf } from './retail-book-side.js';
import { type SlippageTolerance, slippageWorst, toleranceAtEdge } from './retail-slippage.js';
import type { BindingLimit, RiskLimits } from './risk-limits.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** What a banded order was judged against: the tightest band and the reference it was drawn around. */
interface Judged {
  band: BindingLimit;
  reference: Reference;
}

/** A retail price on the market's long book: a short intent's p is 1 − p there (a contract pays $1). */
const longPrice = (value: string, origin: OrderOrigin): number => (origin.mirrored ? 1 - Number(value) : Number(value));

/**
 * The price band (issue 26), one judgement for both surfaces: an order that would execute at once must
 * be priced within the tightest configured `priceBand` of the reference taken from the gateway's own
 * streamed book (the exchange's market-data stream, the retail markets channel). Checked on exchange
 * inserts, batch children and replace items (the new price, with the order's own symbol and side), and
 * on retail creates, modifies (likewise) and close-positions. Orders with no band configured read
 * nothing; a resting order is never refused here.
 */
@Injectable()
export class PriceBand {
  private readonly rules: BandRules;
  private readonly maxAgeMs: number;
  private readonly scale: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly streams: MarketDataStreams,
    private readonly retailBooks: RetailMarketBooks,
    private readonly origins: OrderOrigins,
    private readonly events: MarketEvents,
    private readonly clock: Clock,
    private readonly directory: InstrumentDirectory,
  ) {
    this.rules = { tightSpread: config.risk.tightSpread };
    this.maxAgeMs = config.risk.maxReferenceAgeMs;
    this.scale = config.risk.exchangePriceScale;
  }

  /** An insert's or batch insert's answer: its orders' symbols and sides are known for a replace from now on (OrderOrigins). */
  answered<T extends { text: string }>(
    limits: RiskLimits,
    client: AuthenticatedClient,
    participant: string,
    orders: readonly OrderRequest[],
    reply: T,
  ): T {
    if (limits.mayBind('priceBand', client)) this.origins.answered(participant, orders, reply.text);
    return reply;
  }

  /** An exchange insert or batch child. */
  async check(limits: RiskLimits, client: AuthenticatedClient, order: OrderRequest, path: string): Promise<void> {
    await this.judge(limits, client, order.symbol, exchangeBandOrder(order, this.scale), 'exchange', path);
  }

  /**
   * An exchange replace item, against its new price, on the order's own symbol and side (never the
   * body's). A replace that sets no price keeps the order's: a new quantity does not make it execute.
   * An order booked to another participant is as unknown as one never seen: nothing of it is told.
   */
  async checkReplace(
    limits: RiskLimits,
    client: AuthenticatedClient,
    participant: string,
    replace: ReplaceRequest,
    path: string,
  ): Promise<void> {
    if (replace.price === undefined || !limits.mayBind('priceBand', client)) return;
    const origin = await this.origins.exchange(replace.orderId);
    if (!origin || origin.owner !== participant) throw unknownOrder(replace.orderId, this.maxAgeMs, path);
    const order: BandOrder = { side: origin.side, kind: 'limit', price: Number(replace.price) / 10 ** this.scale };
    await this.judge(limits, client, origin.market, order, 'exchange', path);
  }

  /**
   * A retail create: its intent on the market's long book. A market order is bounded: with a
   * `slippageTolerance`, its worst price is judged (not the touch); without one, once judged at the
   * touch, it is sent with a tolerance that stops it at the band's edge on its side (answered here).
   */
  async checkCreate(
    limits: RiskLimits,
    client: AuthenticatedClient,
    create: CreateOrder,
    path: string,
  ): Promise<CreateOrder> {
    const origin = retailOrigin(create);
    if (!origin) return create;
    if (create.type !== 'ORDER_TYPE_MARKET' && create.price !== undefined) {
      const order: BandOrder = { side: origin.side, kind: 'limit', price: longPrice(create.price.value, origin) };
      await this.judge(limits, client, origin.market, order, 'retail', path);
      return create;
    }
    return this.bounded(limits, client, create, create.intent, path);
  }

  /** A retail modify, against its new price, with the order's own market and intent (from the create that made it). */
  async checkModify(
    limits: RiskLimits,
    client: AuthenticatedClient,
    account: string,
    orderId: string,
    modify: ModifyOrder,
    path: string,
  ): Promise<void> {
    if (modify.price === undefined || !limits.mayBind('priceBand', client)) return;
    const origin = await this.origins.retail(orderId);
    if (!origin || origin.owner !== account) throw unknownOrder(orderId, this.maxAgeMs, path);
    const order: BandOrder = { side: origin.side, kind: 'limit', price: longPrice(modify.price.value, origin) };
    await this.judge(limits, client, origin.market, order, 'retail', path);
  }

  /**
   * A close-position is a market order: it executes at once on the side that reduces the position
   * (`intent`: SELL_LONG for a long, SELL_SHORT for a NO holding, as the upstream closes it), judged
   * and bounded as a market create of that intent. With the side not known (the position not known
   * here, or flat), both touches must be inside, and nothing is stamped.
   */
  async checkClose(
    limits: RiskLimits,
    client: AuthenticatedClient,
    close: ClosePosition,
    intent: OrderIntent | undefined,
    path: string,
  ): Promise<ClosePosition> {
    if (intent) return this.bounded(limits, client, close, intent, path);
    await this.judge(limits, client, close.marketSlug, { side: 'either', kind: 'market' }, 'retail', path);
    return close;
  }

  /** A retail market order of `intent`: its tolerance's worst price judged, or a tolerance at the band's edge stamped. */
  private async bounded<T extends { marketSlug: string; slippageTolerance?: SlippageTolerance }>(
    limits: RiskLimits,
    client: AuthenticatedClient,
    order: T,
    intent: OrderIntent,
    path: string,
  ): Promise<T> {
    const side = yesSideOf(intent);
    const { slippageTolerance: tolerance, marketSlug: market } = order;
    if (tolerance) {
      if (!limits.mayBind('priceBand', client)) return order;
      const tick = (tolerance.ticks ?? 0) > 0 ? await this.tickOf(market) : this.directory.heldTickOf(market);
      const worst = slippageWorst(intent, tolerance, tick);
      const seen: ToleranceSeen = {
        field: `${path}.slippageTolerance`,
        ...(worst.tickUnknown ? { tickUnknown: true } : {}),
      };
      await this.judge(limits, client, market, { side, kind: 'market', bound: worst.price }, 'retail', path, seen);
      return order;
    }
    const judged = await this.judge(limits, client, market, { side, kind: 'market' }, 'retail', path);
    if (!judged) return order;
    const edge = toleranceAtEdge(intent, judged.reference.price, judged.band.value, await this.tickOf(market));
    return edge ? { ...order, slippageTolerance: edge } : order;
  }

  /** The market's tick in dollars (the instrument list the gateway keeps, read at most once a minute on a miss); undefined when not known. */
  private tickOf(market: string): Promise<number | undefined> {
    return this.directory.tickOf(market).catch(() => undefined);
  }

  private async judge(
    limits: RiskLimits,
    client: AuthenticatedClient,
    market: string,
    order: BandOrder,
    surface: 'exchange' | 'retail',
    path: string,
    tolerance?: ToleranceSeen,
  ): Promise<Judged | undefined> {
    const event = limits.namesEvents ? await this.events.of(market, path) : undefined;
    const band = limits.binding('priceBand', client, market, event);
    if (!band) return undefined;
    const quote = await this.quote(surface, market).catch(() => undefined);
    if (!wouldExecute(order, quote)) return undefined;
    const now = this.clock.now(); // the streamed books' receivedAt is steady too
    const reference = quote ? quoteReference(quote, this.rules, now) : undefined;
    if (!reference || reference.ageMs > this.maxAgeMs) {
      const why = !quote
        ? await this.noBook(surface, market)
        : !reference
          ? 'the book has neither a tight two-sided quote nor a last trade'
          : `the book was last heard ${reference.ageMs} ms ago`;
      throw staleReference(market, why, this.maxAgeMs, reference, path);
    }
    for (const price of executionPrices(order, quote)) {
      if (price < reference.price - band.value - 1e-9 || price > reference.price + band.value + 1e-9)
        throw outsideBand(band, reference, price, path, tolerance);
    }
    return { band, reference };
  }

  /** Why there is no book: a symbol the exchange does not list never joins the shared stream (MarketDataStreams). */
  private async noBook(surface: 'exchange' | 'retail', market: string): Promise<string> {
    const unlisted = surface === 'exchange' && (await this.directory.lists(market).catch(() => undefined)) === false;
    return unlisted ? 'the exchange lists no such instrument' : 'no live streamed book';
  }

  private async quote(surface: 'exchange' | 'retail', market: string): Promise<Quote | undefined> {
    if (surface === 'retail') return this.retailBooks.read(market);
    const book = await this.streams.read(market);
    return book && exchangeQuote(book);
  }
}
