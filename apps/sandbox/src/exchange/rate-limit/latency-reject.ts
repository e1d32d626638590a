import type { SandboxFaults } from '../../shared/fault-board.js';
import type { SandboxCounters } from '../../shared/sandbox-counters.js';
import { SurfaceError } from '../../shared/surface-error.js';

/**
 * Operations the exchange's latency stopgap can refuse (upstream-facts, operator's rules: new orders and
 * cancel/replaces; pure cancels never).
 */
const REJECTABLE: ReadonlySet<string> = new Set(['insertOrder', 'insertBatch', 'replaceBatch']);

/**
 * "Global Rate Limit Exceeded": an order received but not processed within 5 s is rejected so it cannot
 * fill stale. Not a rate limit, yet it comes as RESOURCE_EXHAUSTED (429) like one, without Retry-After:
 * the gateway must tell the two apart by the message.
 */
export class LatencyRejectedError extends SurfaceError {
  constructor() {
    super(429, 'Global Rate Limit Exceeded');
  }
}

/** The exchange's latency stopgap: an order received but not processed within this long is rejected unprocessed. */
export const LATENCY_STOPGAP_MS = 5_000;

/**
 * A slow exchange (SandboxFaults.exchangeDelayMs) as the exchange is: a new order or cancel/replace that
 * would be held past the stopgap does not run late, it is rejected unprocessed when the stopgap passes
 * (counter `exchange.latency-rejected.<operation>`, not `exchange.calls.<operation>`). Returns at once for
 * anything else (a shorter hold, a pure cancel, a search: those run however late).
 */
export async function rejectIfHeldPastStopgap(
  counters: SandboxCounters,
  operation: string,
  delayMs: number,
): Promise<void> {
  if (delayMs <= LATENCY_STOPGAP_MS || !REJECTABLE.has(operation)) return;
  await new Promise((resolve) => setTimeout(resolve, LATENCY_STOPGAP_MS));
  throw rejected(counters, operation);
}

/**
 * The operator fault `latencyRejectNext: N`: the next N new orders or cancel/replaces are rejected
 * unprocessed (counter `exchange.latency-rejected.<operation>`); pure cancels pass untouched.
 */
export function rejectForLatency(faults: SandboxFaults, counters: SandboxCounters, operation: string): void {
  const left = faults.latencyRejectNext ?? 0;
  if (left <= 0 || !REJECTABLE.has(operation)) return;
  faults.latencyRejectNext = left - 1;
  throw rejected(counters, operation);
}

/** A rejection, counted (`exchange.latency-rejected.<operation>`): the error to throw. */
function rejected(counters: SandboxCounters, operation: string): LatencyRejectedError {
  counters.count(`exchange.latency-rejected.${operation}`);
  return new LatencyRejectedError();
}
