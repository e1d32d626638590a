/*
 * polymarket.v1 OrderEntryAPI.CreateOrderSubscription messages as proto-loader decodes them
 * (PROTO_LOAD_OPTIONS): only the fields the gateway reads are typed; the rest pass through to clients.
 */
export interface OrderMessage {
  id: string;
  account: string;
  state: string;
  [field: string]: unknown;
}

export interface ExecutionMessage {
  id: string;
  order: OrderMessage | null;
  [field: string]: unknown;
}

export interface CancelRejectMessage {
  account: string;
  [field: string]: unknown;
}

export type OrderResponseMessage = { sessionId: string } & (
  | { event: 'heartbeat' }
  | { event: 'snapshot'; snapshot: { orders: OrderMessage[] } }
  | { event: 'update'; update: { executions: ExecutionMessage[]; cancelReject: CancelRejectMessage | null } }
);

export interface OrderSubscriptionRequest {
  symbols: string[];
  accounts: string[];
}

/** What an `exchange.orders.<participant>` topic carries: its working orders, then one frame per event. */
export interface OrdersSnapshot {
  orders: OrderMessage[];
}
export type OrdersUpdate = { execution: ExecutionMessage } | { cancelReject: CancelRejectMessage };

/** Orders in these states are done: an execution that brings one there takes it off the working list. */
const DONE = new Set([
  'ORDER_STATE_FILLED',
  'ORDER_STATE_CANCELED',
  'ORDER_STATE_REPLACED',
  'ORDER_STATE_REJECTED',
  'ORDER_STATE_EXPIRED',
]);

/** The working orders after an update: the execution's order replaces (or joins) its entry, or leaves when done. */
export function applyOrdersUpdate(snapshot: OrdersSnapshot, update: OrdersUpdate): OrdersSnapshot {
  if (!('execution' in update) || !update.execution.order) return snapshot;
  const order = update.execution.order;
  const others = snapshot.orders.filter((o) => o.id !== order.id);
  return { orders: DONE.has(order.state) ? others : [...others, order] };
}

/**
 * One account's working orders as the service keeps them between snapshots: by id, so an execution
 * costs O(1) instead of a copy of the whole list (applyOrdersUpdate's cost grew with every resting
 * order: a third of a gateway's CPU per insert after a few thousand rested). `snapshot()` lists them
 * in applyOrdersUpdate's order: a changed order moves to the end.
 */
export class WorkingOrders {
  private readonly byId = new Map<string, OrderMessage>();

  constructor(orders: readonly OrderMessage[]) {
    for (const order of orders) this.byId.set(order.id, order);
  }

  apply(update: OrdersUpdate): void {
    if (!('execution' in update) || !update.execution.order) return;
    const order = update.execution.order;
    this.byId.delete(order.id);
    if (!DONE.has(order.state)) this.byId.set(order.id, order);
  }

  snapshot(): OrdersSnapshot {
    return { orders: [...this.byId.values()] };
  }
}
