import type { BudgetedReply } from '@lib/ratelimit';
import type { FastifyRequest } from 'fastify';

/** Every order-entering operation of both surfaces (architecture.md "Order safety"). */
export type OrderOperation =
  | 'exchange.insert'
  | 'exchange.batchInsert'
  | 'exchange.batchReplace'
  | 'exchange.cancel'
  | 'retail.create'
  | 'retail.modify'
  | 'retail.cancel'
  | 'retail.cancelAll'
  | 'retail.closePosition';

/** Exchange inserts: they carry clordIds, so an UNKNOWN one is resolved from the order stream or an order search by clordId. */
export const CREATING_OPERATIONS: readonly OrderOperation[] = ['exchange.insert', 'exchange.batchInsert'];

/**
 * Every call that creates or changes an order: an ambiguous outcome of one is UNKNOWN (202 PENDING,
 * kept under its key, resolved when the exchange shows it, else left pending), never resent and never
 * made terminal by a timer. Cancels are freed instead (a cancel may always be sent again).
 */
export const UNKNOWN_WHEN_AMBIGUOUS: readonly OrderOperation[] = [
  ...CREATING_OPERATIONS,
  'exchange.batchReplace',
  'retail.create',
  'retail.modify',
  'retail.closePosition',
];

/**
 * Retail calls that make an order, whose UNKNOWN outcome is found by the order's terms (no client
 * order id exists on the retail API) on the account's order channel or among its open orders
 * (RetailOrderFinder): their request is kept.
 */
export const FOUND_BY_TERMS: readonly OrderOperation[] = ['retail.create', 'retail.closePosition'];

/** Changes of an existing order: an UNKNOWN one is resolved from the order's current terms (exchange: the order stream, the drop copy, an order lookup; retail: the order read). Their request is kept. */
export const CHANGING_OPERATIONS: readonly OrderOperation[] = ['exchange.batchReplace', 'retail.modify'];

/** The calls whose request (secrets removed) the idempotency record keeps, for their resolver. */
export const KEEPS_REQUEST: readonly OrderOperation[] = [...FOUND_BY_TERMS, ...CHANGING_OPERATIONS];

/** Cancels: never blocked by a gateway rule, the journal's outage included. */
const CANCELS: ReadonlySet<OrderOperation> = new Set(['exchange.cancel', 'retail.cancel', 'retail.cancelAll']);

export const isCancel = (operation: OrderOperation): boolean => CANCELS.has(operation);

/**
 * Whether a call's 2xx answer (or its resolution as applied) gives the caller the order it names: an
 * insert's, a create's, a close-position's and a replace's do; a cancel's or a retail modify's only act on
 * an order, which on a shared account another client may have made. Written on the call's answer and
 * resolution records as `givesOrder` (the journal's provesOrder and madeOrder read it): counted as given, a
 * no-op modify of a sibling's order made it the modifier's, and the modifier's dead-man's switch cancelled it.
 */
export const givesOrder = (operation: OrderOperation): boolean =>
  !CANCELS.has(operation) && operation !== 'retail.modify';

/**
 * One order-entering call as the order path sees it, after auth, binding and validation. `A` is what
 * its checks (`admit`) hand to its send: the order as risk admitted it.
 */
export interface OrderCall<A = undefined> {
  operation: OrderOperation;
  request: FastifyRequest;
  team: string;
  /** The exchange participant or retail account the call acts for. */
  account?: string;
  /** The body as the client sent it (validated): what the Idempotency-Key's fingerprint covers. */
  body: unknown;
  /** The clordIds the call sends (assigned ones included). */
  clordIds: readonly string[];
  /** The exchange order ids the call acts on (cancel, replace): journal records are indexed by them. */
  orderIds?: readonly string[];
  /** The key to use when the client sent no Idempotency-Key (an insert's own clordId). */
  implicitKey?: string;
  /**
   * The clordIds the client chose (an exchange insert's or batch insert's; not the ones the gateway
   * assigns): each is sent for its participant once a key lifetime by a team (OrderSafety: CLORDID_IN_USE).
   */
  ownClordIds?: readonly string[];
  /**
   * The gateway's checks that spend nothing (the brakes' stateless risk step): run before the key is
   * claimed and the intent journaled, so a refusal costs no database write. A refused retry of a call
   * already entered under its key is answered that call's outcome (a replay), not the refusal: the
   * refusal would tell the client its order does not exist.
   */
  admit?: () => Promise<A>;
  /**
   * The request as it will be sent, once admitted, when the checks may change more than the client's
   * body (a retail market order's stamped slippage tolerance): journaled beside the body as `sent`.
   */
  sent?: (admitted: A) => unknown;
  /** Sends the call: budget, send, answer (UpstreamCalls); throws the problem it ends in. */
  send: (admitted: A) => Promise<BudgetedReply>;
}

/** What the client is answered. */
export interface OrderAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}
