import { BookSide } from './book-side.js';
import type { Side } from './engine.enums.js';
import type { Instrument } from './instrument.types.js';
import type { OrderRecord } from './order-record.js';
import type { Trade } from './order.types.js';

/** Session statistics of one instrument (spec 2.6 `stats`); a price is absent until there is one. */
export interface SessionStats {
  openPx?: number;
  closePx?: number;
  lowPx?: number;
  highPx?: number;
  lastTradePx?: number;
  lastTradeQty?: number;
  settlementPx?: number;
  sharesTraded: number;
  notionalTraded: number;
}

/** The book of one instrument: resting orders, held stop orders, its trades and session statistics. */
export class OrderBook {
  readonly bids = new BookSide(true);
  readonly offers = new BookSide(false);
  /** Stop orders waiting for their trigger, in entry order (which is also their trigger priority). */
  readonly stops: OrderRecord[] = [];
  readonly trades: Trade[] = [];
  stats: SessionStats = { sharesTraded: 0, notionalTraded: 0 };

  constructor(readonly instrument: Instrument) {}

  get symbol(): string {
    return this.instrument.symbol;
  }

  side(side: Side): BookSide {
    return side === 'SIDE_BUY' ? this.bids : this.offers;
  }

  /** The side an order of `side` trades against. */
  contra(side: Side): BookSide {
    return side === 'SIDE_BUY' ? this.offers : this.bids;
  }

  recordTrade(trade: Trade): void {
    const s = this.stats;
    this.trades.push(trade);
    s.openPx ??= trade.px;
    s.highPx = s.highPx === undefined ? trade.px : Math.max(s.highPx, trade.px);
    s.lowPx = s.lowPx === undefined ? trade.px : Math.min(s.lowPx, trade.px);
    s.lastTradePx = trade.px;
    s.lastTradeQty = trade.qty;
    s.sharesTraded += trade.qty;
    s.notionalTraded += trade.px * trade.qty;
  }

  /** The close becomes the last price and a new session starts with empty statistics. */
  rollSession(): void {
    const { lastTradePx, settlementPx } = this.stats;
    this.stats = { sharesTraded: 0, notionalTraded: 0, closePx: lastTradePx, lastTradePx, settlementPx };
  }

  /** Every open order of the instrument, resting or held. */
  openOrders(): OrderRecord[] {
    return [...this.bids.orders(), ...this.offers.orders(), ...this.stops];
  }

  unholdStop(rec: OrderRecord): boolean {
    const at = this.stops.indexOf(rec);
    if (at >= 0) this.stops.splice(at, 1);
    return at >= 0;
  }
}
