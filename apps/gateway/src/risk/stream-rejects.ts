import type { ExecutionMessage } from '@lib/exchange';

/** How long an exchange insert answered without an execution seen yet is awaited on the order stream. */
export const STREAM_WAIT_MS = 60_000;
/** At most this many inserts are awaited at once (a stream down for long: the oldest are forgotten). */
const MAX_AWAITED = 100_000;

/** One awaited order of an insert: `expect` hands these out, `answered` and `placed` take them back. */
export interface AwaitedOrder {
  readonly key: string;
  readonly client: string;
  /** Steady clock, for the wait. */
  readonly at: number;
  /** The exchange order id: from the insert's 200 answer, or from the stream execution that settled it. */
  orderId?: string;
  /** A reject of it was counted from the stream (not again from its answer). */
  counted: boolean;
  /** Its call was answered (a reject seen after that is counted at once and the entry dropped). */
  answered: boolean;
  /** Dropped from the awaited ones. */
  settled: boolean;
}

/** The inserts awaited under one participant and clordId. */
interface Waiters {
  /** Usually one. More when two teams' clients sent the same clordId on one participant (clordIds are unique per team). */
  orders: AwaitedOrder[];
  /**
   * First executions seen while more than one order here had no order id yet (order id → was it a
   * reject): only the answer naming that order id tells whose it was.
   */
  unclaimed?: Map<string, boolean>;
}

/**
 * The exchange inserts sent by this instance whose fate the order stream tells (upstream-facts "Order
 * safety": a 200 with an order id is not acceptance, a reject can arrive afterwards, on the order stream
 * and the drop copy). Each awaited insert is keyed by participant and clordId (what the stream's order
 * carries): the first execution of it that the stream shows settles it, a reject counting once for the
 * client that sent it. Only the sending instance knows the client, so each reject is counted once in the
 * fleet, however many instances hold the stream.
 *
 * A clordId is unique per team, not per participant: two clients of two teams on one participant can
 * await the same key. The execution's order id then tells them apart (each 200 answer names its order
 * id). While more than one of them has no order id yet, the execution is kept until an answer names it;
 * if no answer ever does (lost, timed out), that reject is charged to nobody rather than to the wrong client.
 */
export class StreamRejects {
  private readonly awaited = new Map<string, Waiters>();
  private size = 0;

  /** Before the send: the call's orders are awaited for `client`. */
  expect(client: string, account: string, clordIds: readonly string[], now: number): AwaitedOrder[] {
    return clordIds.map((clordId) => {
      while (this.size >= MAX_AWAITED) this.forget(this.awaited.keys().next().value!);
      const key = keyOf(account, clordId);
      const order: AwaitedOrder = { key, client, at: now, counted: false, answered: false, settled: false };
      const waiters = this.awaited.get(key);
      if (waiters) waiters.orders.push(order);
      else this.awaited.set(key, { orders: [order] });
      this.size++;
      return order;
    });
  }

  /**
   * The call failed. `refused`: its answer was itself a reject (counted from the answer), so answers how
   * many of those the stream had counted already (not to count twice), and forgets them.
   */
  answered(orders: readonly AwaitedOrder[], refused: boolean): number {
    let counted = 0;
    for (const order of orders) {
      if (order.settled) continue;
      if (order.counted) counted++;
      if (refused || order.counted) this.drop(order);
      else order.answered = true;
    }
    return counted;
  }

  /**
   * The call was answered 200, naming `orderIds` (by position; undefined where it named none). Answers
   * how many rejects the stream showed for these order ids before the answer could tell whose they were:
   * they are this client's.
   */
  placed(orders: readonly AwaitedOrder[], orderIds: readonly (string | undefined)[]): number {
    let claimed = 0;
    orders.forEach((order, i) => {
      if (order.settled) return;
      order.answered = true;
      if (order.counted) return this.drop(order);
      const orderId = orderIds[i];
      if (orderId === undefined) return;
      order.orderId = orderId;
      const unclaimed = this.awaited.get(order.key)?.unclaimed;
      const rejected = unclaimed?.get(orderId);
      if (rejected === undefined) return;
      unclaimed!.delete(orderId);
      this.drop(order);
      if (rejected) claimed++;
    });
    return claimed;
  }

  /** An execution from the order stream: answers the client to count a reject for, when it is the reject of an awaited insert. */
  seen(execution: ExecutionMessage): string | undefined {
    const order = execution.order;
    const clordId = order?.clordId;
    if (!order || typeof clordId !== 'string' || clordId === '') return undefined;
    const waiters = this.awaited.get(keyOf(order.account, clordId));
    if (!waiters) return undefined;
    const rejected = execution.type === 'EXECUTION_TYPE_REJECTED' || order.state === 'ORDER_STATE_REJECTED';
    const orderId = typeof order.id === 'string' && order.id !== '' ? order.id : undefined;
    let entry = orderId === undefined ? undefined : waiters.orders.find((each) => each.orderId === orderId);
    if (!entry) {
      // Seen already while it could not be told whose it was: its answer settles it, not a repeat.
      if (orderId !== undefined && waiters.unclaimed?.has(orderId)) return undefined;
      const unnamed = waiters.orders.filter((each) => each.orderId === undefined);
      // Every order here has its order id, none this one: not an order this instance awaits.
      if (unnamed.length === 0) return undefined;
      if (unnamed.length > 1) {
        // Which of them sent it is not known yet: the answer naming this order id will tell.
        if (orderId !== undefined) (waiters.unclaimed ??= new Map()).set(orderId, rejected);
        return undefined;
      }
      entry = unnamed[0]!;
      entry.orderId = orderId;
    }
    if (entry.counted) return undefined;
    if (!rejected || entry.answered) this.drop(entry);
    else entry.counted = true;
    return rejected ? entry.client : undefined;
  }

  /** Forgets inserts awaited for longer than STREAM_WAIT_MS (steady clock); answers how many are still awaited. */
  sweep(now: number): number {
    for (const waiters of this.awaited.values())
      for (const order of [...waiters.orders]) if (now - order.at > STREAM_WAIT_MS) this.drop(order);
    return this.size;
  }

  private drop(order: AwaitedOrder): void {
    const waiters = this.awaited.get(order.key);
    order.settled = true;
    if (!waiters) return;
    const index = waiters.orders.indexOf(order);
    if (index < 0) return;
    waiters.orders.splice(index, 1);
    this.size--;
    if (waiters.orders.length === 0) this.awaited.delete(order.key);
  }

  private forget(key: string): void {
    for (const order of [...(this.awaited.get(key)?.orders ?? [])]) this.drop(order);
  }
}

/** The order ids a 200 answer of an exchange insert (`{orderId}`) or batch insert (`{responses: [{orderId} | {error}]}`) names, by position. */
export function answeredOrderIds(text: string, count: number): (string | undefined)[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [];
  }
  if (body === null || typeof body !== 'object') return [];
  const { orderId, responses } = body as { orderId?: unknown; responses?: unknown };
  if (count === 1 && typeof orderId === 'string') return [orderId];
  if (!Array.isArray(responses) || responses.length !== count) return [];
  return responses.map((item: unknown) => {
    const id = item !== null && typeof item === 'object' ? (item as { orderId?: unknown }).orderId : undefined;
    return typeof id === 'string' ? id : undefined;
  });
}

function keyOf(account: string, clordId: string): string {
  return `${account}\u0000${clordId}`;
}
