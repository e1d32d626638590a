import { ValidationError } from '@lib/core';

/** The upstream does not publish how long a synchronous order blocks without maxBlockTime; this long is assumed. */
const DEFAULT_BLOCK_SECONDS = 30;
/** The highest `bulkheads.blocking.maxBlockSeconds` the config accepts. */
export const MAX_BLOCK_SECONDS = 300;

export interface BlockingRequest {
  synchronousExecution?: boolean;
  maxBlockTime?: string;
}

/** How a call is sent: the body (maxBlockTime filled in when the default would pass the cap), its deadline, and whether it blocks. */
export interface BlockingPlan<T> {
  body: T;
  blocking: boolean;
  /** Undefined: the ordinary deadline. */
  timeoutMs?: number;
}

/**
 * spec 2.10: with synchronousExecution the upstream answers only once the order is done or after
 * maxBlockTime seconds, so the deadline is that plus the ordinary one, and the call goes through the
 * blocking pool (bulkheads.blocking). A maxBlockTime past `maxBlockSeconds` (the client's cap) is
 * refused before anything is spent; an absent one is set to the cap when the assumed default is longer.
 */
export function blockingPlan<T extends BlockingRequest>(
  request: T,
  ordinaryMs: number,
  maxBlockSeconds: number,
): BlockingPlan<T> {
  if (!request.synchronousExecution) return { body: request, blocking: false };
  if (request.maxBlockTime === undefined) {
    const seconds = Math.min(DEFAULT_BLOCK_SECONDS, maxBlockSeconds);
    const body = seconds < DEFAULT_BLOCK_SECONDS ? { ...request, maxBlockTime: String(seconds) } : request;
    return { body, blocking: true, timeoutMs: ordinaryMs + seconds * 1_000 };
  }
  const asked = Number(request.maxBlockTime);
  if (asked > maxBlockSeconds) {
    throw new ValidationError(
      [
        {
          path: 'body.maxBlockTime',
          message: `at most ${maxBlockSeconds} seconds for this client (bulkheads.blocking.maxBlockSeconds)`,
        },
      ],
      `maxBlockTime may be at most ${maxBlockSeconds} seconds: a blocking call holds an upstream connection that long.`,
    );
  }
  return { body: request, blocking: true, timeoutMs: ordinaryMs + Math.max(0, asked) * 1_000 };
}
