/**
 * Least-recently-used map bounded by entry count and total size, with a per-entry deadline. Recency is
 * approximated by second chance (CLOCK): a read only marks its entry, and eviction, walking from the
 * oldest insertion (a Map keeps insertion order), moves a marked entry to the back unmarked instead of
 * dropping it. A read, the hot path of every cache hit, then never reorders the Map.
 */
export class Lru<V> {
  private readonly items = new Map<string, { value: V; size: number; expiresAt: number; used: boolean }>();
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
    item.used = true;
    return item.value;
  }

  /** Stores unless the value alone is larger than the whole budget; evicts the least recently used as needed. */
  set(key: string, value: V, size: number, expiresAt: number): void {
    this.remove(key);
    if (this.maxEntries <= 0 || size > this.maxBytes) return;
    // Room is made before the new entry goes in, so entries given a second chance end up ahead of it
    // and it is not the next victim. Entries moved to the back are visited again, unmarked: it ends.
    for (const [oldest, item] of this.items) {
      if (this.items.size < this.maxEntries && this.bytes + size <= this.maxBytes) break;
      if (item.used) {
        item.used = false;
        this.items.delete(oldest);
        this.items.set(oldest, item);
      } else {
        this.remove(oldest);
      }
    }
    this.items.set(key, { value, size, expiresAt, used: false });
    this.bytes += size;
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
