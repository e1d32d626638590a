import type { JournalEntry } from '@lib/journal';

/** `value[field][index]` when `value[field]` is an array of `length` items (a batch's requests or responses), else `value`. */
function itemOf(value: unknown, field: string, index: number, length: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  const items = (value as Record<string, unknown>)[field];
  return Array.isArray(items) && items.length === length ? (items[index] as unknown) : value;
}

/**
 * A batch's record as one record per order it carries, each under that order's clordId (an insert
 * batch) or order id (a replace batch), with that order's own request and answer: an order's timeline
 * (found by its clordId or order id) then holds its batch's received, sent and answer records, under its
 * team. Any other call's record is kept as it is.
 */
export function perOrder(
  entry: JournalEntry,
  clordIds: readonly string[],
  orderIds: readonly string[] = [],
): JournalEntry[] {
  const byClordId = clordIds.length > 1;
  const length = byClordId ? clordIds.length : orderIds.length;
  if (length < 2) return [entry];
  const data = entry.data ?? {};
  const answered = itemOf(data.body, 'responses', 0, length) !== data.body;
  return Array.from({ length }, (_, index) => {
    const body = itemOf(data.body, answered ? 'responses' : 'requests', index, length);
    const answerOrderId =
      answered && body !== null && typeof body === 'object' ? (body as { orderId?: unknown }).orderId : undefined;
    return {
      ...entry,
      clordId: byClordId ? clordIds[index] : entry.clordId,
      orderId: byClordId ? (typeof answerOrderId === 'string' ? answerOrderId : entry.orderId) : orderIds[index],
      data: { ...data, ...('body' in data ? { body } : {}), batch: { index, size: length } },
    };
  });
}
