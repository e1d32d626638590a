import type { IdempotencyRecord } from '@lib/journal';

/**
 * A change call is final this long after it was marked UNKNOWN: upstream rejects an order or
 * cancel/replace it received but did not process within 5 s (upstream-facts "latency stopgap"), plus
 * a second of margin. Only a read made after that may conclude "not applied" from the order's terms.
 */
export const CHANGE_FINAL_MS = 6_000;

/** Look back this far before the call's intent (clock skew between the gateway and the upstream). */
export const CHANGE_SKEW_MS = 5_000;

/** What a resolver concluded for one changed order. */
export type ChangeOutcome =
  | { orderId: string; clordId?: string; applied: true; state?: string }
  | { orderId: string; clordId?: string; applied: false; why: string };

/** One item of an exchange batch replace, as the idempotency record kept it. */
export interface ReplaceItem {
  orderId: string;
  clordId?: string;
  [field: string]: unknown;
}

/** The terms a replace sets that the order's record shows back (the flags and times are not compared). */
const REPLACE_TERMS = ['clordId', 'price', 'orderQty', 'stopPrice', 'minQty', 'timeInForce'] as const;
const NUMERIC: ReadonlySet<string> = new Set(['price', 'orderQty', 'stopPrice', 'minQty']);

export function replaceItemsOf(record: IdempotencyRecord): ReplaceItem[] | undefined {
  const requests = (record.request as { requests?: unknown } | undefined)?.requests;
  if (!Array.isArray(requests)) return undefined;
  const items = requests.filter(
    (item): item is ReplaceItem => typeof (item as Partial<ReplaceItem> | null)?.orderId === 'string',
  );
  return items.length === requests.length && items.length > 0 ? items : undefined;
}

/** A replace that sets none of the compared terms (only flags or times) cannot be told from its order: it stays PENDING. */
export const replaceIsComparable = (item: ReplaceItem): boolean =>
  REPLACE_TERMS.some((field) => item[field] !== undefined);

/** True when the exchange order (a stream message or a search record) shows every term the replace set. */
export function showsReplaceTerms(order: Readonly<Record<string, unknown>>, item: ReplaceItem): boolean {
  return REPLACE_TERMS.every(
    (field) => item[field] === undefined || sameValue(order[field], item[field], NUMERIC.has(field)),
  );
}

/** The terms the order shows, for the journal's "not applied" reason. */
export function shownReplaceTerms(order: Readonly<Record<string, unknown>>, item: ReplaceItem): string {
  return REPLACE_TERMS.filter((field) => item[field] !== undefined)
    .map((field) => `${field} ${JSON.stringify(order[field] ?? null)} (asked ${JSON.stringify(item[field])})`)
    .join(', ');
}

/** A retail modify as the idempotency record kept it: the order id and the body. */
export interface ModifyRequest {
  orderId: string;
  body: { marketSlug?: string; price?: { value: string }; quantity?: number };
}

export function modifyRequestOf(record: IdempotencyRecord): ModifyRequest | undefined {
  const request = record.request as Partial<ModifyRequest> | undefined;
  return request && typeof request.orderId === 'string' && request.body !== null && typeof request.body === 'object'
    ? (request as ModifyRequest)
    : undefined;
}

/** A retail order as `GET /v1/order/{id}` shows it (upstream-facts "Retail shapes"). */
export interface RetailOrderView {
  id?: string;
  price?: { value?: string };
  quantity?: number | string;
  state?: string;
}

/** A modify that sets neither price nor quantity cannot be told from its order: it stays PENDING. */
export const modifyIsComparable = (body: ModifyRequest['body']): boolean =>
  body.price !== undefined || body.quantity !== undefined;

/** True when the retail order shows the price and quantity the modify asked for. */
export function showsModifyTerms(order: RetailOrderView, body: ModifyRequest['body']): boolean {
  return (
    (body.price === undefined || sameValue(order.price?.value, body.price.value, true)) &&
    (body.quantity === undefined || sameValue(order.quantity, body.quantity, true))
  );
}

function sameValue(shown: unknown, asked: unknown, numeric: boolean): boolean {
  if (shown === undefined || shown === null || shown === '') return false;
  return numeric ? Number(shown) === Number(asked) : String(shown) === String(asked);
}
