/**
 * Least-recently-used map bounded by entry count and total size, with a per-entry deadline. A Map keeps
 * insertion order, so re-inserting on read makes the first key the least recently used.
 */
export class Lru<V> {
  private readonly items = new Map<string, { value: V; size: number; expiresAt: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.items.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  get(key: string, now: number): V | undefined {
    const item = this.items.get(key);
    if (!item) return undefined;
    if (item.expiresAt <= now) {
      this.remove(key);
      return undefined;
    }
    this.items.delete(key);
    this.items.set(key, item);
    return item.value;
  }

  /** Stores unless the value alone is larger than the whole budget; evicts the least recently used as needed. */
  set(key: string, value: V, size: number, expiresAt: number): void {
    this.remove(key);
    if (this.maxEntries <= 0 || size > this.maxBytes) return;
    this.items.set(key, { value, size, expiresAt });
    this.bytes += size;
    for (const oldest of this.items.keys()) {
      if (this.items.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  delete(key: string): boolean {
    return this.remove(key);
  }

  /** Removes every key the filter selects; returns how many. */
  purge(filter: (key: string) => boolean): number {
    let removed = 0;
    for (const key of [...this.items.keys()]) if (filter(key) && this.remove(key)) removed++;
    return removed;
  }

  private remove(key: string): boolean {
    const item = this.items.get(key);
    if (!item) return false;
    this.items.delete(key);
    this.bytes -= item.size;
    return true;
  }
}
