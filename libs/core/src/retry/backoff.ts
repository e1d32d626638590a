/**
 * Exponential backoff with full jitter (a uniform delay between 0 and the exponential cap): retries of
 * many gateway instances after one outage (auth, a stream upstream) spread out instead of arriving
 * together. `failures` counts from 1.
 */
export function fullJitterDelay(
  failures: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const cap = Math.min(maxMs, initialMs * 2 ** Math.max(0, failures - 1));
  return Math.floor(random() * cap);
}
