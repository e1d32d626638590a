import type { ExecutionMessage } from '@lib/exchange';

/** How long an exchange insert answered without an execution seen yet is awaited on the order stream. */
export const STREAM_WAIT_MS = 60_000;
/** At most this many inserts are awaited at once (a stream down for long: the oldest are forgotten). */
const MAX_AWAITED = 100_000;

interface Awaited {
  client: string;
  /** Steady clock, for the wait. */
  at: number;
  /** A reject of it was counted from the stream (not again from its answer). */
  counted: boolean;
  /** Its call was answered (a reject seen after that is counted at once and the entry dropped). */
  answered: boolean;
}

/**
 * The exchange inserts sent by this instance whose fate the order stream tells (upstream-facts "Order
 * safety": a 200 with an order id is not acceptance, a reject can arrive afterwards, on the order stream
 * and the drop copy). Each awaited insert is keyed by participant and clordId (what the stream's order
 * carries, and unique among working orders): the first execution of it that the stream shows settles it,
 * a reject counting once for the client that sent it. Only the sending instance knows the client, so
 * each reject is counted once in the fleet, however many instances hold the stream.
 */
export class StreamRejects {
  private readonly awaited = new Map<string, Awaited>();

  /** Before the send: the call's orders are awaited for `client`. Answers their keys. */
  expect(client: string, account: string, clordIds: readonly string[], now: number): string[] {
    const keys = clordIds.map((clordId) => keyOf(account, clordId));
    for (const key of keys) {
      if (this.awaited.size >= MAX_AWAITED) this.awaited.delete(this.awaited.keys().next().value!);
      this.awaited.set(key, { client, at: now, counted: false, answered: false });
    }
    return keys;
  }

  /**
   * The call was answered. `refused`: its answer was itself a reject (counted from the answer), so
   * answers how many of those the stream had counted already (not to count twice), and forgets them.
   */
  answered(keys: readonly string[], refused: boolean): number {
    let counted = 0;
    for (const key of keys) {
      const entry = this.awaited.get(key);
      if (!entry) continue;
      if (entry.counted) counted++;
      if (refused || entry.counted) this.awaited.delete(key);
      else entry.answered = true;
    }
    return counted;
  }

  /** An execution from the order stream: answers the client to count a reject for, when it is the reject of an awaited insert. */
  seen(execution: ExecutionMessage): string | undefined {
    const order = execution.order;
    const clordId = order?.clordId;
    if (!order || typeof clordId !== 'string' || clordId === '') return undefined;
    const key = keyOf(order.account, clordId);
    const entry = this.awaited.get(key);
    if (!entry || entry.counted) return undefined;
    const rejected = execution.type === 'EXECUTION_TYPE_REJECTED' || order.state === 'ORDER_STATE_REJECTED';
    if (!rejected || entry.answered) this.awaited.delete(key);
    else entry.counted = true;
    return rejected ? entry.client : undefined;
  }

  /** Forgets inserts awaited for longer than STREAM_WAIT_MS (steady clock); answers how many are still awaited. */
  sweep(now: number): number {
    for (const [key, entry] of this.awaited) if (now - entry.at > STREAM_WAIT_MS) this.awaited.delete(key);
    return this.awaited.size;
  }
}

function keyOf(account: string, clordId: string): string {
  return `${account}\u0000${clordId}`;
}
