import type { CatalogEntry } from './catalog-entry.js';
import { type CatalogStore, type PurgeMatch, purgeFilter } from './catalog-store.js';
import { Lru } from './lru.js';

/**
 * Single-instance mode (no Redis): the shared tier is a bounded map in this process. There is no
 * other instance to coalesce with, so this instance always leads.
 */
export class MemoryCatalogStore implements CatalogStore {
  readonly shared = false;
  private readonly entries: Lru<CatalogEntry>;
  private readonly listeners: ((match: PurgeMatch) => void)[] = [];

  constructor(
    maxEntries: number,
    private readonly now: () => number,
  ) {
    this.entries = new Lru(maxEntries);
  }

  async get(key: string): Promise<CatalogEntry | undefined> {
    return this.entries.get(key, this.now());
  }

  async set(key: string, entry: CatalogEntry, retainMs: number): Promise<void> {
    this.entries.set(key, entry, entry.body.length, entry.storedAt + retainMs);
  }

  async acquire(): Promise<boolean> {
    return true;
  }

  async release(): Promise<void> {}

  async waitForFill(): Promise<CatalogEntry | undefined> {
    return undefined;
  }

  async purge(match: PurgeMatch): Promise<number> {
    const removed = this.entries.purge(purgeFilter(match));
    for (const listener of this.listeners) listener(match);
    return removed;
  }

  onPurge(listener: (match: PurgeMatch) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {}
}
