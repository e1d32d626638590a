/** The kinds of order event the journal records (issue 27 item 3). */
export type JournalKind =
  | 'received'
  | 'refused'
  | 'replayed'
  | 'sent'
  | 'answer'
  | 'unknown'
  | 'resolved'
  | 'stream'
  /** An admin decision: a trading state latched or lifted, a kill-switch run and each order it met. */
  | 'admin';

/** One order event as a caller hands it to the journal; secrets must already be gone from `data`. */
export interface JournalEntry {
  kind: JournalKind;
  clordId?: string;
  orderId?: string;
  clientId?: string;
  team?: string;
  data?: Record<string, unknown>;
}

/** One stored record, as read back. */
export interface JournalRecord extends JournalEntry {
  seq: number;
  at: string;
  hash: string;
}
