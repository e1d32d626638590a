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
 * answer gave the team the order (a 2xx answer to an insert, create, close-position or replace, or such
 * an UNKNOWN call resolved as found or applied). The gateway says on each answer and resolution whether
 * its call gives the order (`givesOrder`: a cancel's or a retail modify's does not). A record that only
 * claims an order id (the `received` or `refused` record of a cancel, replace or modify naming another
 * team's order, refused 404) proves nothing: else any team could name another's order id in a refused
 * call and read that order's stream events on a timeline.
 */
export function provesOrder(record: JournalRecord): boolean {
  if (record.orderId === undefined || record.team === undefined || actsOnly(record)) return false;
  const { status, outcome, body } = record.data ?? {};
  if (record.kind === 'answer')
    return typeof status === 'number' && status >= 200 && status < 300 && !refusedItem(body);
  return record.kind === 'resolved' && (outcome === 'found' || outcome === 'applied');
}

/** A record whose call the gateway marked as one that acts on an order without being given it. */
const actsOnly = (record: JournalRecord): boolean => record.data?.givesOrder === false;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A batch is answered 200 as a whole, each item with its own outcome: an item the upstream refused holds
 * an error in the gRPC status shape (`{error: {code, message}}`), alone in a one-item batch's `responses`
 * or as a larger batch's item record's body. Its 200 gave nothing: a refused replace of a sibling bot's
 * order made that order the caller's, and the caller's cancel-on-disconnect cancelled it.
 */
function refusedItem(body: unknown): boolean {
  const responses = isObject(body) ? body.responses : undefined;
  const item = Array.isArray(responses) && responses.length === 1 ? (responses[0] as unknown) : body;
  const error = isObject(item) && isObject(item.error) ? item.error : item;
  return isObject(error) && typeof error.code === 'number' && error.code !== 0 && typeof error.message === 'string';
}

/**
 * Whether a record shows a call made the order it names: the 2xx answer of the call that created it
 * (a retail create's or close-position's `{id}`; an exchange insert's `{orderId}`, recorded under the
 * insert's clordId), or an UNKNOWN call resolved as found. A call that only acts on an order names it
 * without making it: a cancel's or modify's records, a replace's answer (`{orderId}` under no clordId),
 * a kill-switch run's.
 */
export function madeOrder(record: JournalRecord): boolean {
  if (record.orderId === undefined || actsOnly(record)) return false;
  const { status, outcome, body } = record.data ?? {};
  if (record.kind === 'resolved') return outcome === 'found';
  if (record.kind !== 'answer' || typeof status !== 'number' || status < 200 || status >= 300) return false;
  const answer = (body ?? {}) as { id?: unknown; orderId?: unknown };
  return answer.id === record.orderId || (answer.orderId === record.orderId && record.clordId !== undefined);
}
