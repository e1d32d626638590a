/**
 * Exponential backoff with full jitter (a uniform delay between 0 and the exponential cap): retries of
 * many gateway instances after one auth outage spread out instead of arriving together.
 */
export function fullJitterDelay(failures: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const cap = Math.min(maxMs, initialMs * 2 ** Math.max(0, failures - 1));
  return Math.floor(random() * cap);
}
