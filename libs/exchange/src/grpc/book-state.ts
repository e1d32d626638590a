import type { MarketDataUpdateMessage } from './market-data.messages.js';

/**
 * Identity of a delivered book state: levels, instrument state, statistics and transact time. A
 * message with the key of the last state delivered (a resubscription's snapshot of a book that has
 * not changed) is not sent to subscribers again.
 */
export function bookStateKey(update: MarketDataUpdateMessage): string {
  return JSON.stringify([update.bids, update.offers, update.state, update.stats, update.transactTime, update.bookHidden]);
}
