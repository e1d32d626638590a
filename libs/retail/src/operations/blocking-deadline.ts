/** The upstream does not publish how long a synchronous order blocks without maxBlockTime; this long is assumed. */
const DEFAULT_BLOCK_SECONDS = 30;
/** A client may ask for any int64; the gateway will not hold a connection open longer than this for it. */
export const MAX_BLOCK_SECONDS = 300;

export interface BlockingRequest {
  synchronousExecution?: boolean;
  maxBlockTime?: string;
}

/**
 * spec 2.10: with synchronousExecution the upstream answers only once the order is done or after
 * maxBlockTime seconds, so the deadline is that plus the ordinary one. Undefined: the ordinary deadline.
 */
export function blockingDeadlineMs(request: BlockingRequest, ordinaryMs: number): number | undefined {
  if (!request.synchronousExecution) return undefined;
  const seconds = request.maxBlockTime === undefined ? DEFAULT_BLOCK_SECONDS : Math.min(Number(request.maxBlockTime), MAX_BLOCK_SECONDS);
  return ordinaryMs + seconds * 1_000;
}
