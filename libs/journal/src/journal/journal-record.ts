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

/**
 * Whether a team's record shows the order it names is that team's: the exchange's or retail API's
 * answer gave the team the order (a 2xx answer, or an UNKNOWN call resolved as found or applied). A
 * record that only claims an order id (the `received` or `refused` record of a cancel, replace or
 * modify naming another team's order, refused 404) proves nothing: else any team could name another's
 * order id in a refused call and read that order's stream events on a timeline.
 */
export function provesOrder(record: JournalRecord): boolean {
  if (record.orderId === undefined || record.team === undefined) return false;
  const { status, outcome } = record.data ?? {};
  if (record.kind === 'answer') return typeof status === 'number' && status >= 200 && status < 300;
  return record.kind === 'resolved' && (outcome === 'found' || outcome === 'applied');
}
