import { z } from 'zod';

/**
 * Enumerations of the exchange surface, spelled exactly as spec 2.1, 3.1, 3.2 and 4.1 (and the filter
 * operators of upstream-facts). Each is a const tuple, for code that needs the list, and a zod enum.
 */
export const SIDES = ['SIDE_BUY', 'SIDE_SELL'] as const;
export const SideSchema = z.enum(SIDES);
export type Side = z.infer<typeof SideSchema>;

export const ORDER_TYPES = [
  'ORDER_TYPE_MARKET_TO_LIMIT',
  'ORDER_TYPE_LIMIT',
  'ORDER_TYPE_STOP',
  'ORDER_TYPE_STOP_LIMIT',
] as const;
export const OrderTypeSchema = z.enum(ORDER_TYPES);
export type OrderType = z.infer<typeof OrderTypeSchema>;

export const TimeInForceSchema = z.enum([
  'TIME_IN_FORCE_DAY',
  'TIME_IN_FORCE_GOOD_TILL_CANCEL',
  'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
  'TIME_IN_FORCE_GOOD_TILL_TIME',
  'TIME_IN_FORCE_FILL_OR_KILL',
]);
export type TimeInForce = z.infer<typeof TimeInForceSchema>;

export const SelfMatchPreventionInstructionSchema = z.enum([
  'SELF_MATCH_PREVENTION_INSTRUCTION_REJECT_AGGRESSOR',
  'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING',
  'SELF_MATCH_PREVENTION_INSTRUCTION_REMOVE_BOTH',
]);
export type SelfMatchPreventionInstruction = z.infer<typeof SelfMatchPreventionInstructionSchema>;

export const OrderCapacitySchema = z.enum([
  'ORDER_CAPACITY_AGENCY',
  'ORDER_CAPACITY_PRINCIPAL',
  'ORDER_CAPACITY_PROPRIETARY',
  'ORDER_CAPACITY_INDIVIDUAL',
  'ORDER_CAPACITY_RISKLESS_PRINCIPAL',
  'ORDER_CAPACITY_AGENT_FOR_OTHER_MEMBER',
]);
export type OrderCapacity = z.infer<typeof OrderCapacitySchema>;

/** The exchange spelling; the retail API says MANUAL_ORDER_INDICATOR_AUTOMATIC instead (spec 2.10). */
export const ManualOrderIndicatorSchema = z.enum(['MANUAL_ORDER_INDICATOR_MANUAL', 'MANUAL_ORDER_INDICATOR_AUTOMATED']);
export type ManualOrderIndicator = z.infer<typeof ManualOrderIndicatorSchema>;

/** upstream-facts "Order states", in wire-number order (NEW = 0 ... PENDING_RISK = 10). */
export const OrderStateSchema = z.enum([
  'ORDER_STATE_NEW',
  'ORDER_STATE_PARTIALLY_FILLED',
  'ORDER_STATE_FILLED',
  'ORDER_STATE_CANCELED',
  'ORDER_STATE_REPLACED',
  'ORDER_STATE_REJECTED',
  'ORDER_STATE_EXPIRED',
  'ORDER_STATE_PENDING_NEW',
  'ORDER_STATE_PENDING_REPLACE',
  'ORDER_STATE_PENDING_CANCEL',
  'ORDER_STATE_PENDING_RISK',
]);
export type OrderState = z.infer<typeof OrderStateSchema>;

/** Spec 3.1: the search filter values. */
export const OrderStateFilterSchema = z.enum([
  'ORDER_STATE_FILTER_OPEN',
  'ORDER_STATE_FILTER_CLOSED',
  'ORDER_STATE_FILTER_NEW',
  'ORDER_STATE_FILTER_PARTIALLY_FILLED',
  'ORDER_STATE_FILTER_FILLED',
  'ORDER_STATE_FILTER_CANCELED',
  'ORDER_STATE_FILTER_REPLACED',
  'ORDER_STATE_FILTER_REJECTED',
  'ORDER_STATE_FILTER_EXPIRED',
  'ORDER_STATE_FILTER_PENDING_RISK',
]);
export type OrderStateFilter = z.infer<typeof OrderStateFilterSchema>;

/** Spec 3.2 with the wire numbers of upstream-facts (CLOSED = 0 ... PENDING = 8), in that order. */
export const INSTRUMENT_STATES = [
  'INSTRUMENT_STATE_CLOSED',
  'INSTRUMENT_STATE_OPEN',
  'INSTRUMENT_STATE_PREOPEN',
  'INSTRUMENT_STATE_SUSPENDED',
  'INSTRUMENT_STATE_EXPIRED',
  'INSTRUMENT_STATE_TERMINATED',
  'INSTRUMENT_STATE_HALTED',
  'INSTRUMENT_STATE_MATCH_AND_CLOSE_AUCTION',
  'INSTRUMENT_STATE_PENDING',
] as const;
export const InstrumentStateSchema = z.enum(INSTRUMENT_STATES);
export type InstrumentState = z.infer<typeof InstrumentStateSchema>;

export const TradableFilterSchema = z.enum([
  'TRADABLE_FILTER_TRADABLE',
  'TRADABLE_FILTER_NON_TRADABLE',
  'TRADABLE_FILTER_ALL',
]);
export type TradableFilter = z.infer<typeof TradableFilterSchema>;

/** Spec 4.1 names UNSPECIFIED; upstream-facts lists the rest. */
export const FILTER_OPERATORS = [
  'FILTER_OPERATOR_UNSPECIFIED',
  'FILTER_OPERATOR_EQ',
  'FILTER_OPERATOR_NE',
  'FILTER_OPERATOR_LT',
  'FILTER_OPERATOR_LE',
  'FILTER_OPERATOR_GT',
  'FILTER_OPERATOR_GE',
  'FILTER_OPERATOR_LIKE',
  'FILTER_OPERATOR_IN',
  'FILTER_OPERATOR_NOT_IN',
] as const;
export const FilterOperatorSchema = z.enum(FILTER_OPERATORS);
export type FilterOperator = z.infer<typeof FilterOperatorSchema>;

/** Spec 2.4 names PARTIAL_FILL; upstream-facts the rest. */
export const ExecutionTypeSchema = z.enum([
  'EXECUTION_TYPE_NEW',
  'EXECUTION_TYPE_PARTIAL_FILL',
  'EXECUTION_TYPE_FILL',
  'EXECUTION_TYPE_CANCELED',
  'EXECUTION_TYPE_REPLACE',
  'EXECUTION_TYPE_REJECTED',
  'EXECUTION_TYPE_EXPIRED',
  'EXECUTION_TYPE_DONE_FOR_DAY',
]);
export type ExecutionType = z.infer<typeof ExecutionTypeSchema>;
