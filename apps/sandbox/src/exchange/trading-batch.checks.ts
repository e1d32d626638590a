import type { MatchingEngine, OrderRequest } from '../engine/index.js';
import { SurfaceError } from '../shared/surface-error.js';
import type { ExchangeCaller } from './exchange-authorization.js';
import { ownerOf } from './firm-accounts.js';
import type { ReplaceRequest as WireReplaceRequest } from './wire/exchange-request.wire.js';

// Batches are checked whole before any item runs, so a refusal that has an HTTP status of its own
// (409 duplicate clordId, 404 unknown order, 409 closed order) leaves nothing half done.

/** A clordId used twice in the batch, or already used by the account, refuses the batch (409). */
export function checkBatchInsert(engine: MatchingEngine, requests: readonly OrderRequest[]): void {
  const seen = new Set<string>();
  requests.forEach((request, i) => {
    if (!request.clordId) return;
    const key = `${request.account}\n${request.clordId}`;
    if (seen.has(key))
      throw new SurfaceError(409, `requests.${i}.clordId: ${request.clordId} appears twice in the batch`);
    seen.add(key);
    // A preview inserts nothing but refuses a clordId the account has used, as insert would.
    engine.preview(request);
  });
}

/** Every order named must be the firm's (else 404) and still working (else 409); answers each order's account. */
export function checkBatchReplace(
  engine: MatchingEngine,
  caller: ExchangeCaller,
  requests: readonly WireReplaceRequest[],
): string[] {
  return requests.map((request, i) => {
    const account = ownerOf(engine, caller, request.orderId);
    const order = engine.order(request.orderId);
    if (order && order.state !== 'ORDER_STATE_NEW' && order.state !== 'ORDER_STATE_PARTIALLY_FILLED') {
      throw new SurfaceError(409, `requests.${i}.orderId: order ${request.orderId} is ${order.state}`);
    }
    return account;
  });
}
