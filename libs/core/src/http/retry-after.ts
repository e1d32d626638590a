/** Retry-After (RFC 9110 §10.2.3) in seconds, or undefined when absent or unreadable. */
export function retryAfterOf(value: string | null | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}
