import type { CatalogEntry } from './catalog-entry.js';

/** RFC 5861 windows, both counted from the moment an entry stops being fresh. */
export interface StaleWindows {
  staleWhileRevalidateMs: number;
  staleIfErrorMs: number;
}

/**
 * fresh: serve. revalidate: serve, and refresh once in the background. stale: refresh before
 * answering, but the entry may still answer if that refresh fails (stale-if-error). expired: useless.
 */
export type Phase = 'fresh' | 'revalidate' | 'stale' | 'expired';

export function staleForMs(entry: CatalogEntry, now: number): number {
  return now - (entry.storedAt + entry.ttlMs);
}

export function phaseOf(entry: CatalogEntry, now: number, windows: StaleWindows): Phase {
  const staleFor = staleForMs(entry, now);
  if (staleFor < 0) return 'fresh';
  if (staleFor < windows.staleWhileRevalidateMs) return 'revalidate';
  if (staleFor < windows.staleIfErrorMs) return 'stale';
  return 'expired';
}

/** May this entry stand in for an upstream that failed just now? */
export function usableOnError(entry: CatalogEntry, now: number, windows: StaleWindows): boolean {
  return staleForMs(entry, now) < windows.staleIfErrorMs;
}

/** How long past storage an entry can still serve in some window; stores drop it after that. */
export function retentionMs(entry: CatalogEntry, windows: StaleWindows): number {
  return entry.ttlMs + Math.max(windows.staleWhileRevalidateMs, windows.staleIfErrorMs);
}

/** RFC 9111 §5.1: whole seconds since the upstream produced the answer. */
export function ageSeconds(entry: CatalogEntry, now: number): number {
  return Math.max(0, Math.floor((now - entry.storedAt) / 1000));
}

/**
 * RFC 9111 §4.2.1: max-age is the freshness lifetime and a receiver subtracts Age from it, so the
 * freshness left to the client is max-age − Age. Sending the remaining time as max-age alongside Age
 * would count the elapsed time twice.
 */
export function cacheControl(entry: CatalogEntry): string {
  return `private, max-age=${Math.floor(entry.ttlMs / 1000)}`;
}
