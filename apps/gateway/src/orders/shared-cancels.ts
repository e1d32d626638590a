import { canonicalJson } from '@lib/journal';

/** One send of a cancel, under way or waiting for the send ahead of it, and what its joiners must share with it. */
interface Flight<T> {
  same: string;
  answer: Promise<T>;
}

/**
 * Cancels of one order sent one at a time in this process, concurrent duplicates answered from one send.
 * A cancel is never blocked by a gateway rule (no bulkhead, no rate), so before, 300 concurrent cancels
 * of one working order were each sent: a probe held over 100 of the exchange pool's 64 connections for one
 * team (its bound 32), spent a cancel token each, and queued another team's read behind them.
 *
 * A call naming an order (`order`: the team, the participant or account, the order's id) whose cancel is
 * under way, or waiting, with the same request (`same`: its body and `Prefer: wait`) gets that send's
 * outcome: the same reply (the 200 the first got, or the upstream's refusal), never a refusal of the
 * gateway's. A call with another request waits for the sends ahead of it and is then sent. So at most one
 * cancel of an order is in flight per team, and each distinct request is sent once while any are queued.
 * Each caller still records its own answer from the shared one (OrderSafety: journal, Idempotency-Key).
 */
export class SharedCancels<T> {
  private readonly queues = new Map<string, Flight<T>[]>();

  /** `send`'s outcome, or that of the same request's send of `order` under way or waiting. */
  run(order: string, same: string, send: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(order);
    const joined = queue?.find((flight) => flight.same === same);
    if (joined) return joined.answer;
    if (!queue) {
      queue = [];
      this.queues.set(order, queue);
    }
    const ahead = queue.at(-1)?.answer;
    const settled = () => undefined;
    const answer = ahead ? ahead.then(settled, settled).then(send) : started(send);
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
