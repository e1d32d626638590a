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

/** Operations that create orders: an ambiguous outcome of one is UNKNOWN and resolved, never resent. */
export const CREATING_OPERATIONS: readonly OrderOperation[] = ['exchange.insert', 'exchange.batchInsert'];

/**
 * Operations with no resolver yet whose ambiguous outcome is kept under their key: a retry with the key
 * replays the "may have been processed" problem instead of sending again. Cancels are freed instead.
 */
export const KEPT_WHEN_AMBIGUOUS: readonly OrderOperation[] = ['exchange.batchReplace', 'retail.create', 'retail.modify', 'retail.closePosition'];

/** Cancels: never blocked by a gateway rule, the journal's outage included. */
const CANCELS: ReadonlySet<OrderOperation> = new Set(['exchange.cancel', 'retail.cancel', 'retail.cancelAll']);

export const isCancel = (operation: OrderOperation): boolean => CANCELS.has(operation);

/** One order-entering call as the order path sees it, after auth, binding and validation. */
export interface OrderCall {
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
  /** Sends the call: budget, send, answer (UpstreamCalls); throws the problem it ends in. */
  send: () => Promise<BudgetedReply>;
}

/** What the client is answered. */
export interface OrderAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}
