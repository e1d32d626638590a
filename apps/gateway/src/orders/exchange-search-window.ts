import { httpDateMs, offsetFromDate, type JsonReply } from '@lib/core';

/** What an answer tells of the exchange's clock: its `Date` and when (local steady time) it was asked and came. */
export type DatedReply = Pick<JsonReply, 'headers' | 'sentAt' | 'receivedAt'>;

/**
 * The exchange's clock against ours, as its answers' `Date` headers show it (one-second resolution).
 * An order search filters on the order's createTime, by the exchange's clock: the start of a search that
 * must show a call's order is set by that clock, and a search proves an order absent only when its answer
 * shows that its start came before the call's claim. The journal's clock (a claim's age) gives intervals
 * only, never instants to compare with the exchange's.
 */
export class ExchangeSearchWindow {
  /** The exchange's clock minus ours, learned from the last dated answer (0 until one came). */
  private offsetMs = 0;

  /** The search start, by the exchange's clock, for a claim `claimAgeMs` old at `readAt` (our steady clock), `marginMs` earlier. */
  start(readAt: number, claimAgeMs: number, marginMs: number): number {
    return readAt - claimAgeMs + this.offsetMs - marginMs;
  }

  /** Learns the offset from one answer (offsetFromDate); an answer without a readable Date leaves it. */
  observe(reply: DatedReply): void {
    this.offsetMs = offsetFromDate(dateOf(reply), reply.sentAt, reply.receivedAt) ?? this.offsetMs;
  }

  /**
   * True when a search from `start` that gave `reply` covers a claim `claimAgeMs` old at `readAt`: the answer
   * was written at exchange time Date or later, at most `receivedAt - readAt + claimAgeMs` after the claim,
   * so the claim (and any order it made) is no earlier than Date less that. No `Date`, no proof.
   */
  covers(reply: DatedReply, start: number, readAt: number, claimAgeMs: number): boolean {
    const date = httpDateMs(dateOf(reply));
    return date !== undefined && start <= date - (reply.receivedAt - readAt) - claimAgeMs;
  }
}

function dateOf(reply: DatedReply): string | undefined {
  const header = reply.headers['date'];
  return typeof header === 'string' ? header : undefined;
}
