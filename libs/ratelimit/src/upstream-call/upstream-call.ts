import { DomainError, ErrorCode, type JsonReply, type JsonRequest, RateLimitedError } from '@lib/core';

import type { RouteBudget } from '../budget/route-budgets.js';

/** How one surface authenticates a try; absent for unauthenticated calls (catalog, exchange health). */
export interface UpstreamCredentials {
  /**
   * Whatever a try may have to wait for (a bearer token being fetched), had before the try takes budget:
   * a try never waits between its budget and its send (tries admitted at the budget's pace would leave
   * bunched), and one that cannot get credentials costs no budget. Rejects with the problem to answer.
   */
  prepare?(): Promise<unknown>;
  /** Headers that authenticate one try (the current bearer token, a fresh signature), right before it is sent. */
  headers(): Promise<Record<string, string>> | Record<string, string>;
  /** Reads every answer first (the retail signer learns the server clock from it). */
  observe?(reply: JsonReply): void;
  /**
   * A 401 came back to `sent`: true when one resend with fresh credentials may pass (a 401 means the
   * request was not processed, so even an order may be resent once).
   */
  unauthorized?(reply: JsonReply, sent: Record<string, string>): boolean;
}

/** One upstream call, validated already, as the pipeline sends it (see UpstreamCalls). */
export interface UpstreamCall extends Omit<JsonRequest, 'headers'> {
  /** `exchange`, `retail` or `catalog`: named in problems. */
  surface: string;
  url: string;
  timeoutMs: number;
  /** Headers sent on every try besides the credentials (e.g. x-participant-id). */
  headers?: Record<string, string>;
  /** What each try spends of the shared budget (ROUTE_BUDGETS); `null` only for routes with no published limit. */
  budget: RouteBudget | null;
  team?: string;
  /** The calling client's id: its own bound on calls in flight (bulkheads). */
  client?: string;
  /** A call that holds its connection until the upstream is done (a synchronous retail order): the blocking pool and allowance. */
  blocking?: boolean;
  /** Operations counted in buckets that count operations (a batch of n: n). */
  cost?: number;
  /** The client's `Prefer: wait` in ms (capped): every try may queue for budget this long. */
  preferWaitMs?: number;
  /** The retail account (API key) the call is signed with: per-key buckets. */
  account?: string;
  credentials?: UpstreamCredentials;
  /** Added to any problem the call ends in (e.g. the clordId of an order). */
  context?: Record<string, unknown>;
}

/**
 * The resend after a 401 found no budget within the client's wait: the client's request was accepted
 * and not processed, so it is the upstream path that is out of capacity now (503), not the client (429).
 */
export function resendUnavailable(refusal: RateLimitedError, context: Record<string, unknown> = {}): DomainError {
  return new DomainError(ErrorCode.SERVICE_UNAVAILABLE, 'The upstream refused the credentials once and the budget has no room to resend now; the request was not processed.', {
    headers: { 'Retry-After': refusal.headers['Retry-After'] ?? '1' },
    extensions: { ...context, ...refusal.extensions, processed: false },
  });
}
