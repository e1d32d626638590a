import { canonicalJson } from '@lib/journal';

/** One send of a cancel, under way or waiting for the send ahead of it, and what its joiners must share with it. */
interface Flight<T> {
  same: string;
  answer: Promise<T>;
}

/** Sends of one order's cancels under way at once: a retry of a stuck cancel still gets a send of its own. */
export const SENDS_PER_ORDER = 2;

/**
 * Cancels of one order sent at most SENDS_PER_ORDER at a time in this process, further concurrent
 * duplicates answered from a send under way. A cancel is never blocked by a gateway rule (no bulkhead, no
 * rate), so before, 300 concurrent cancels of one working order were each sent: a probe held over 100 of
 * the exchange pool's 64 connections for one team (its bound 32), spent a cancel token each, and queued
 * another team's read behind them.
 *
 * A call naming an order (`order`: the team, the participant or account, the order's id) is sent at once
 * while fewer than SENDS_PER_ORDER of that order's cancels are under way: so a client retrying a cancel
 * whose first send hangs gets a send of its own (test/order-safety-redteam). Past that, a call with the
 * same request (`same`: its body and `Prefer: wait`) as a send under way or waiting gets that send's
 * outcome: the same reply (the 200 the first got, or the upstream's refusal), never a refusal of the
 * gateway's; a call with another request waits for the newest send and is then sent. Each caller still
 * records its own answer from the shared one (OrderSafety: journal, Idempotency-Key).
 */
export class SharedCancels<T> {
  private readonly queues = new Map<string, Flight<T>[]>();

  /** `send`'s outcome, or that of the same request's send of `order` under way or waiting. */
  run(order: string, same: string, send: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(order);
    if (!queue) {
      queue = [];
      this.queues.set(order, queue);
    }
    let answer: Promise<T>;
    if (queue.length < SENDS_PER_ORDER) answer = started(send);
    else {
      const joined = queue.findLast((flight) => flight.same === same);
      if (joined) return joined.answer;
      const settled = () => undefined;
      answer = queue.at(-1)!.answer.then(settled, settled).then(send);
    }
    const flight: Flight<T> = { same, answer };
    queue.push(flight);
    const owner = queue;
    const done = () => {
      owner.splice(owner.indexOf(flight), 1);
      if (owner.length === 0 && this.queues.get(order) === owner) this.queues.delete(order);
    };
    answer.then(done, done);
    return answer;
  }
}

/** `send` started now; a synchronous throw is its rejection. */
const started = async <T>(send: () => Promise<T>): Promise<T> => send();

/** The key of a cancel of `orderRef` by `team` for `account` (a participant or a retail account). */
export const cancelKey = (team: string, account: string, orderRef: string): string =>
  `${team}\u0000${account}\u0000${orderRef}`;

/** What two cancels must share to share one send: the request as sent, and how long its budget may wait. */
export const sameCancel = (body: unknown, preferWaitMs: number | undefined): string =>
  `${preferWaitMs ?? ''}\u0000${canonicalJson(body)}`;
