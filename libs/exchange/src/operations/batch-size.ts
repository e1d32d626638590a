import { DomainError, ErrorCode } from '@lib/core';

import { MAX_BATCH_ORDERS } from '../schemas/order-request.schema.js';

/**
 * Spec 4.1/8: a batch insert or replace of more than 20 orders is rejected upstream. Checked before
 * anything else (validation, budget) so such a batch costs nothing and is a 413, as upstream answers.
 */
export function assertBatchSize(body: unknown): void {
  const requests = typeof body === 'object' && body !== null ? (body as { requests?: unknown }).requests : undefined;
  if (!Array.isArray(requests) || requests.length <= MAX_BATCH_ORDERS) return;
  throw new DomainError(
    ErrorCode.PAYLOAD_TOO_LARGE,
    `A batch carries at most ${MAX_BATCH_ORDERS} orders; this one has ${requests.length}.`,
    {
      extensions: { maxItems: MAX_BATCH_ORDERS, items: requests.length },
    },
  );
}
