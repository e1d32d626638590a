// Retail enumerations as the sandbox speaks them, from spec 2.9-2.12 and upstream-facts "Retail shapes".

export const ORDER_INTENTS = [
  'ORDER_INTENT_BUY_LONG',
  'ORDER_INTENT_SELL_LONG',
  'ORDER_INTENT_BUY_SHORT',
  'ORDER_INTENT_SELL_SHORT',
] as const;
export type OrderIntent = (typeof ORDER_INTENTS)[number];

export const RETAIL_ORDER_TYPES = ['ORDER_TYPE_LIMIT', 'ORDER_TYPE_MARKET'] as const;
export type RetailOrderType = (typeof RETAIL_ORDER_TYPES)[number];

/** Spec 2.10: GOOD_TILL_DATE where the exchange says GOOD_TILL_TIME, and no DAY. */
export const RETAIL_TIME_IN_FORCES = [
  'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  'TIME_IN_FORCE_GOOD_TILL_DATE',
  'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
  'TIME_IN_FORCE_FILL_OR_KILL',
] as const;
export type RetailTimeInForce = (typeof RETAIL_TIME_IN_FORCES)[number];

/** The retail SDK spells it AUTOMATIC (the exchange: AUTOMATED). */
export const RETAIL_MANUAL_ORDER_INDICATORS = [
  'MANUAL_ORDER_INDICATOR_MANUAL',
  'MANUAL_ORDER_INDICATOR_AUTOMATIC',
] as const;

export type OrderSide = 'ORDER_SIDE_BUY' | 'ORDER_SIDE_SELL';

export const ACTIVITY_TYPES = [
  'ACTIVITY_TYPE_TRADE',
  'ACTIVITY_TYPE_POSITION_RESOLUTION',
  'ACTIVITY_TYPE_ACCOUNT_DEPOSIT',
  'ACTIVITY_TYPE_ACCOUNT_ADVANCED_DEPOSIT',
  'ACTIVITY_TYPE_ACCOUNT_WITHDRAWAL',
  'ACTIVITY_TYPE_REFERRAL_BONUS',
  'ACTIVITY_TYPE_TRANSFER',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export const MARKET_SUBSCRIPTION_TYPES = [
  'SUBSCRIPTION_TYPE_MARKET_DATA',
  'SUBSCRIPTION_TYPE_MARKET_DATA_LITE',
  'SUBSCRIPTION_TYPE_TRADE',
] as const;
/** upstream-facts "Retail extras": ORDER_SNAPSHOT beside the SDK's three (RFQ is not modelled). */
export const PRIVATE_SUBSCRIPTION_TYPES = [
  'SUBSCRIPTION_TYPE_ORDER',
  'SUBSCRIPTION_TYPE_ORDER_SNAPSHOT',
  'SUBSCRIPTION_TYPE_POSITION',
  'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE',
] as const;
export type RetailSubscriptionType =
  (typeof MARKET_SUBSCRIPTION_TYPES)[number] | (typeof PRIVATE_SUBSCRIPTION_TYPES)[number];
