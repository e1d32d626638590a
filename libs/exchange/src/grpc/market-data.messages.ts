import type { InstrumentState } from '../schemas/exchange-enums.schema.js';

/*
 * polymarket.v1 market-data messages as proto-loader decodes them with PROTO_LOAD_OPTIONS: camelCase
 * names, int64 as decimal strings, enums as their names, absent scalars filled with defaults. The
 * proto is the schema here (decoding already checks the wire), so these are plain types, not zod.
 */

export interface BookEntryMessage {
  px: string;
  qty: string;
}

export interface MarketDataStatsMessage {
  lastTradePx: string;
  lastTradeQty: string;
  openPx: string;
  highPx: string;
  lowPx: string;
  closePx: string;
  sharesTraded: string;
  openInterest: string;
  notionalTraded: string;
  settlementPx: string;
  indicativeOpenPx: string;
}

/** google.protobuf.Timestamp; `seconds` is an int64. */
export interface TimestampMessage {
  seconds: string;
  nanos: number;
}

/** The full book of one symbol at the subscribed depth: a snapshot and every update have this shape. */
export interface MarketDataUpdateMessage {
  symbol: string;
  bids: BookEntryMessage[];
  offers: BookEntryMessage[];
  state: InstrumentState;
  /** Message fields the sender left out decode as null. */
  stats: MarketDataStatsMessage | null;
  transactTime: TimestampMessage | null;
  bookHidden: boolean;
  priceScale: number;
  quantityScale: number;
}

export interface MarketDataSubscriptionRequest {
  /** Empty: every symbol (at most 1000). */
  symbols: string[];
  unaggregated?: boolean;
  /** 0 or absent: 10 levels. */
  depth?: number;
  snapshotOnly?: boolean;
}

/** One client message of BiDirectionalStreamMarketData; neither list set: a keep-alive. */
export interface MarketDataStreamRequest {
  addSymbols?: string[];
  removeSymbols?: string[];
  /** Read from the stream's first message; 0 or absent: 10 levels. */
  depth?: number;
}

/** `event` names the member of the `oneof event` that is set (proto-loader `oneofs: true`). */
export type MarketDataResponseMessage =
  { event: 'heartbeat'; heartbeat: Record<string, never> } | { event: 'update'; update: MarketDataUpdateMessage };
