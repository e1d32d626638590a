import { z } from 'zod';

import { InstrumentStateSchema } from './exchange-enums.schema.js';
import { DateObjectSchema, DateTimeSchema, JsonObjectSchema, TimeOfDaySchema } from './wire-types.schema.js';

const text = z.string().optional();
const flag = z.boolean().optional();

export const TradingScheduleEntrySchema = z.object({
  daysOfWeek: z.array(z.int()).optional(),
  timeOfDay: TimeOfDaySchema.optional(),
  duration: text,
  state: InstrumentStateSchema.optional(),
  hideMarketData: flag,
  expireAllOrders: flag,
});

export const PriceLimitSchema = z.object({
  low: text,
  high: text,
  lowSet: flag,
  highSet: flag,
  relativeLow: z.number().optional(),
  relativeHigh: z.number().optional(),
  relativeLowSet: flag,
  relativeHighSet: flag,
});

export const OrderSizeLimitSchema = z.object({
  low: text,
  high: text,
  lowSet: flag,
  highSet: flag,
  totalNotionalLow: text,
  totalNotionalHigh: text,
  totalNotionalLowSet: flag,
  totalNotionalHighSet: flag,
});

export const EventAttributesSchema = z.object({
  question: text,
  payoutValue: text,
  eventDisplayName: text,
  eventId: text,
  strikeValue: text,
  evaluationType: text,
  strikeUnit: text,
  calculationMethod: text,
  timeSpecifier: text,
  positionAccountabilityValue: text,
});

/** Spec 2.5: exchange reference data. */
export const InstrumentSchema = z.object({
  symbol: text,
  description: text,
  clearingHouse: text,
  productId: text,
  baseCurrency: text,
  settlementCurrency: text,
  priceScale: text,
  settlementPriceScale: text,
  fractionalQtyScale: text,
  minimumTradeQty: text,
  minimumUnaffiliatedFirms: text,
  tradeSettlementPeriod: text,
  jsonAttributes: text,
  tickSize: z.number().optional(),
  multiplier: z.number().optional(),
  nonTradable: flag,
  state: InstrumentStateSchema.optional(),
  startDate: DateObjectSchema.optional(),
  expirationDate: DateObjectSchema.optional(),
  terminationDate: DateObjectSchema.optional(),
  expirationTime: TimeOfDaySchema.optional(),
  createTime: DateTimeSchema.optional(),
  updateTime: DateTimeSchema.optional(),
  metadata: JsonObjectSchema.optional(),
  tradingSchedule: z.array(TradingScheduleEntrySchema).optional(),
  priceLimit: PriceLimitSchema.optional(),
  orderSizeLimit: OrderSizeLimitSchema.optional(),
  eventAttributes: EventAttributesSchema.optional(),
});
export type Instrument = z.infer<typeof InstrumentSchema>;
