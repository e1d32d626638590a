import { z } from 'zod';

/**
 * Enumerations of the retail surface (spec 2.9-2.12, upstream-facts "Retail shapes" and WebSocket
 * protocol), as const tuples so the sandbox and the schemas share one spelling.
 */
export const ORDER_INTENTS = [
  'ORDER_INTENT_BUY_LONG',
  'ORDER_INTENT_SELL_LONG',
  'ORDER_INTENT_BUY_SHORT',
  'ORDER_INTENT_SELL_SHORT',
] as const;
export const OrderIntentSchema = z.enum(ORDER_INTENTS);
export type OrderIntent = z.infer<typeof OrderIntentSchema>;

export const RETAIL_ORDER_TYPES = ['ORDER_TYPE_LIMIT', 'ORDER_TYPE_MARKET'] as const;
export const RetailOrderTypeSchema = z.enum(RETAIL_ORDER_TYPES);
export type RetailOrderType = z.infer<typeof RetailOrderTypeSchema>;

/** spec 2.10: the retail time in force has GOOD_TILL_DATE where the exchange has GOOD_TILL_TIME, and no DAY. */
export const RETAIL_TIME_IN_FORCES = [
  'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  'TIME_IN_FORCE_GOOD_TILL_DATE',
  'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
  'TIME_IN_FORCE_FILL_OR_KILL',
] as const;
export const RetailTimeInForceSchema = z.enum(RETAIL_TIME_IN_FORCES);
export type RetailTimeInForce = z.infer<typeof RetailTimeInForceSchema>;

/** spec 2.10 and the SDK spell it AUTOMATIC on retail (the exchange says AUTOMATED). */
export const RETAIL_MANUAL_ORDER_INDICATORS = [
  'MANUAL_ORDER_INDICATOR_MANUAL',
  'MANUAL_ORDER_INDICATOR_AUTOMATIC',
] as const;
export const RetailManualOrderIndicatorSchema = z.enum(RETAIL_MANUAL_ORDER_INDICATORS);

export const ORDER_SIDES = ['ORDER_SIDE_BUY', 'ORDER_SIDE_SELL'] as const;
export type OrderSide = (typeof ORDER_SIDES)[number];

export const RETAIL_ORDER_STATES = [
  'ORDER_STATE_NEW',
  'ORDER_STATE_PENDING_NEW',
  'ORDER_STATE_PENDING_REPLACE',
  'ORDER_STATE_PENDING_CANCEL',
  'ORDER_STATE_PENDING_RISK',
  'ORDER_STATE_PARTIALLY_FILLED',
  'ORDER_STATE_FILLED',
  'ORDER_STATE_CANCELED',
  'ORDER_STATE_REPLACED',
  'ORDER_STATE_REJECTED',
  'ORDER_STATE_EXPIRED',
] as const;

export const RETAIL_EXECUTION_TYPES = [
  'EXECUTION_TYPE_NEW',
  'EXECUTION_TYPE_PARTIAL_FILL',
  'EXECUTION_TYPE_FILL',
  'EXECUTION_TYPE_CANCELED',
  'EXECUTION_TYPE_REPLACE',
  'EXECUTION_TYPE_REJECTED',
  'EXECUTION_TYPE_EXPIRED',
  'EXECUTION_TYPE_DONE_FOR_DAY',
] as const;

export const MARKET_STATES = [
  'MARKET_STATE_OPEN',
  'MARKET_STATE_PREOPEN',
  'MARKET_STATE_SUSPENDED',
  'MARKET_STATE_HALTED',
  'MARKET_STATE_EXPIRED',
  'MARKET_STATE_TERMINATED',
  'MARKET_STATE_MATCH_AND_CLOSE_AUCTION',
] as const;

export const ACTIVITY_TYPES = [
  'ACTIVITY_TYPE_TRADE',
  'ACTIVITY_TYPE_POSITION_RESOLUTION',
  'ACTIVITY_TYPE_ACCOUNT_DEPOSIT',
  'ACTIVITY_TYPE_ACCOUNT_ADVANCED_DEPOSIT',
  'ACTIVITY_TYPE_ACCOUNT_WITHDRAWAL',
  'ACTIVITY_TYPE_REFERRAL_BONUS',
  'ACTIVITY_TYPE_TRANSFER',
] as const;
export const ActivityTypeSchema = z.enum(ACTIVITY_TYPES);
export type ActivityType = z.infer<typeof ActivityTypeSchema>;

/** spec 4.2: newest first by default. */
export const SORT_ORDERS = ['SORT_ORDER_DESCENDING', 'SORT_ORDER_ASCENDING'] as const;
export const SortOrderSchema = z.enum(SORT_ORDERS);
export type SortOrder = z.infer<typeof SortOrderSchema>;

export const MARKET_SUBSCRIPTION_TYPES = [
  'SUBSCRIPTION_TYPE_MARKET_DATA',
  'SUBSCRIPTION_TYPE_MARKET_DATA_LITE',
  'SUBSCRIPTION_TYPE_TRADE',
] as const;
/** upstream-facts "Retail extras": ORDER_SNAPSHOT (snapshot only) beside the SDK's three; RFQ is not modelled. */
export const PRIVATE_SUBSCRIPTION_TYPES = [
  'SUBSCRIPTION_TYPE_ORDER',
  'SUBSCRIPTION_TYPE_ORDER_SNAPSHOT',
  'SUBSCRIPTION_TYPE_POSITION',
  'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE',
] as const;
export type MarketSubscriptionType = (typeof MARKET_SUBSCRIPTION_TYPES)[number];
export type PrivateSubscriptionType = (typeof PRIVATE_SUBSCRIPTION_TYPES)[number];
export type RetailSubscriptionType = MarketSubscriptionType | PrivateSubscriptionType;
