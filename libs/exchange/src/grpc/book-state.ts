import type { MarketDataUpdateMessage } from './market-data.messages.js';

/**
 * Identity of a delivered book state: levels, instrument state, statistics and transact time. Two
 * messages with the same key are the same state, so a renewal's snapshot of a state the old stream
 * already delivered is not sent twice.
 */
export function bookStateKey(update: MarketDataUpdateMessage): string {
  return JSON.stringify([update.bids, update.offers, update.state, update.stats, update.transactTime, update.bookHidden]);
}

/** The same without the transact time: what subscribers see, for a server that stamps snapshots "now". */
export function bookContentKey(update: MarketDataUpdateMessage): string {
  return JSON.stringify([update.bids, update.offers, update.state, update.stats, update.bookHidden]);
}

/**
 * Make-before-break renewal: the replacement stream's messages are held back until the old stream
 * has delivered a state the replacement also holds; from there on the replacement carries on, and
 * nothing is lost or repeated whichever of the two streams runs ahead.
 */
export class Handover<T> {
  private readonly held: { key: string; message: T }[] = [];

  constructor(
    private readonly keyOf: (message: T) => string,
    private delivered: string | undefined,
  ) {}

  /** The old stream delivered `message`: returns what to deliver after it when the switch can happen now. */
  old(message: T): T[] | undefined {
    this.delivered = this.keyOf(message);
    return this.match();
  }

  /** The replacement sent `message` (its snapshot first): same return as `old`. */
  replacement(message: T): T[] | undefined {
    this.held.push({ key: this.keyOf(message), message });
    return this.match();
  }

  /** The replacement's current state, for a switch that cannot wait any longer. */
  latest(): T | undefined {
    return this.held.at(-1)?.message;
  }

  private match(): T[] | undefined {
    // The earliest match: if a state repeats, a repeat is better than a loss.
    const at = this.held.findIndex((entry) => entry.key === this.delivered);
    return at < 0 ? undefined : this.held.slice(at + 1).map((entry) => entry.message);
  }
}
