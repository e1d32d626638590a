import type { JournalRecord } from '@lib/journal';

/** An insert's terms as a call sent them, or an order's as the exchange shows them. */
export type OrderTerms = Readonly<Record<string, unknown>>;

/** The terms an insert sets that its order shows back. */
const INSERT_TERMS = ['symbol', 'side', 'type', 'timeInForce', 'price', 'orderQty', 'stopPrice'] as const;
/** 0 means "none" on the wire (proto3), as an absent field does. */
const NUMERIC: ReadonlySet<string> = new Set(['price', 'orderQty', 'stopPrice']);

/**
 * What a call sent for each of its clordIds, from its `received` records (the first of each): an
 * insert's body, or its batch's item. A clordId with no record is missing from the map.
 */
export function sentTermsOf(intents: readonly JournalRecord[]): Map<string, OrderTerms> {
  const sent = new Map<string, OrderTerms>();
  for (const intent of intents) {
    if (!intent.clordId || sent.has(intent.clordId)) continue;
    const item = itemOf(intent.data?.body, intent.clordId);
    if (item) sent.set(intent.clordId, item);
  }
  return sent;
}

/** Order types whose `price` is the limit the order keeps; any other's is not (a market-to-limit rests at its fill's price). */
const PRICED_TYPES: ReadonlySet<string> = new Set(['ORDER_TYPE_LIMIT', 'ORDER_TYPE_STOP_LIMIT']);

/**
 * Whether the order may be the one a call sent: every term both show, and the exchange keeps as sent,
 * is the same. A term either side leaves out is not compared (a default the client did not send, a
 * field a stream does not carry); a call whose terms are not known may have sent any order. Terms the
 * exchange sets itself are not compared (a probe: a lost insert was told ORDER_NOT_PLACED, the order
 * resting or filled, as its shown terms differed): the price of an order that is not a limit (a
 * market-to-limit rests at its fill's price, and its type may show as a limit), and the quantity and
 * time in force of a cash order (the exchange sizes it, and makes it immediate-or-cancel).
 */
export function mayBeSent(order: OrderTerms | undefined, sent: OrderTerms | undefined): boolean {
  if (!order || !sent) return true;
  const cash = !absent(sent.cashOrderQty, true);
  const priced = PRICED_TYPES.has(String(sent.type ?? 'ORDER_TYPE_LIMIT'));
  return INSERT_TERMS.every((field) => {
    if (field === 'price' && !priced) return true;
    if ((field === 'orderQty' || field === 'timeInForce') && cash) return true;
    if (field === 'type' && sent.type === 'ORDER_TYPE_MARKET_TO_LIMIT') return true;
    const numeric = NUMERIC.has(field);
    const shown = order[field];
    const asked = sent[field];
    if (absent(shown, numeric) || absent(asked, numeric)) return true;
    return numeric ? Number(shown) === Number(asked) : String(shown) === String(asked);
  });
}

const absent = (value: unknown, numeric: boolean): boolean =>
  value === undefined || value === null || value === '' || (numeric && Number(value) === 0);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A single insert's body is its order; a batch's record holds its item, or the whole batch when it has one item. */
function itemOf(body: unknown, clordId: string): OrderTerms | undefined {
  if (!isObject(body)) return undefined;
  if (!Array.isArray(body.requests)) return body;
  const items = body.requests.filter(isObject);
  return items.find((item) => item.clordId === clordId) ?? (items.length === 1 ? items[0] : undefined);
}
