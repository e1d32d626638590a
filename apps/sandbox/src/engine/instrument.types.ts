import type { InstrumentState } from './engine.enums.js';

/** Spec conventions: a date object is {year, month, day}, month 1-12. */
export interface DateObject {
  year: number;
  month: number;
  day: number;
}

export interface TimeOfDay {
  hours: number;
  minutes: number;
  seconds: number;
}

export interface TradingScheduleEntry {
  daysOfWeek: number[];
  timeOfDay: TimeOfDay;
  /** Protobuf duration spelling, e.g. "3600s". */
  duration: string;
  state: InstrumentState;
  hideMarketData: boolean;
  expireAllOrders: boolean;
}

/** Prices in price units (integers); the REST layer writes them as int64 strings. */
export interface PriceLimit {
  low: number;
  high: number;
  lowSet: boolean;
  highSet: boolean;
  relativeLow: number;
  relativeHigh: number;
  relativeLowSet: boolean;
  relativeHighSet: boolean;
}

export interface OrderSizeLimit {
  low: number;
  high: number;
  lowSet: boolean;
  highSet: boolean;
  totalNotionalLow: number;
  totalNotionalHigh: number;
  totalNotionalLowSet: boolean;
  totalNotionalHighSet: boolean;
}

export interface EventAttributes {
  question: string;
  payoutValue: string;
  eventDisplayName: string;
  eventId: string;
  strikeValue: string;
  evaluationType: string;
  strikeUnit: string;
  calculationMethod: string;
  timeSpecifier: string;
  positionAccountabilityValue: string;
}

/** Exchange reference data, every field of spec 2.5. Times are epoch milliseconds. */
export interface Instrument {
  symbol: string;
  description: string;
  clearingHouse: string;
  productId: string;
  baseCurrency: string;
  settlementCurrency: string;
  priceScale: string;
  settlementPriceScale: string;
  fractionalQtyScale: string;
  minimumTradeQty: string;
  minimumUnaffiliatedFirms: string;
  tradeSettlementPeriod: string;
  jsonAttributes: string;
  /** In price units: with priceScale "2" a tick of 1 is one cent. */
  tickSize: number;
  multiplier: number;
  nonTradable: boolean;
  state: InstrumentState;
  startDate: DateObject;
  expirationDate: DateObject;
  terminationDate: DateObject;
  expirationTime: TimeOfDay;
  createTime: number;
  updateTime: number;
  metadata: Record<string, string>;
  tradingSchedule: TradingScheduleEntry[];
  priceLimit: PriceLimit;
  orderSizeLimit: OrderSizeLimit;
  eventAttributes: EventAttributes;
}
