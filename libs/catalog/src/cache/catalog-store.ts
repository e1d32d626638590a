import type { CatalogEntry } from './catalog-entry.js';

/** Injection token of the shared tier: Redis when configured, else in memory. */
export const CATALOG_STORE = Symbol('CATALOG_STORE');

/** Which entries a purge removes: all of a route, all under a target prefix (`/v1/markets/x`), or both. */
export interface PurgeMatch {
  route?: string;
  prefix?: string;
}

/** The key filter of a purge; keys are `<route>|<target>` (see canonicalKey). */
export function purgeFilter(match: PurgeMatch): (key: string) => boolean {
  return (key) => {
    const bar = key.indexOf('|');
    if (match.route !== undefined && key.slice(0, bar) !== match.route) return false;
    return match.prefix === undefined || key.slice(bar + 1).startsWith(match.prefix);
  };
}

/**
 * The shared tier of the catalog cache. Every method absorbs its own failures (a Redis outage makes
 * the cache local and the upstream busier, never the request fail): reads miss, writes are lost,
 * `acquire` grants the lead so the caller makes its own call.
 */
export interface CatalogStore {
  readonly shared: boolean;
  get(key: string): Promise<CatalogEntry | undefined>;
  set(key: string, entry: CatalogEntry, retainMs: number): Promise<void>;
  /** Tries to become the one instance filling `key` for at most `ms`. */
  acquire(key: string, token: string, ms: number): Promise<boolean>;
  release(key: string, token: string): Promise<void>;
  /**
   * A follower's wait for the leader's result: an entry stored after `after`, or undefined once the
   * leader let go without one or `ms` have passed.
   */
  waitForFill(key: string, after: number, ms: number): Promise<CatalogEntry | undefined>;
  /** Removes matching entries here and tells every instance to drop its local copies. */
  purge(match: PurgeMatch): Promise<number>;
  /** Called with every purge, from this instance or another, so local copies go too. */
  onPurge(listener: (match: PurgeMatch) => void): void;
  close(): Promise<void>;
}
