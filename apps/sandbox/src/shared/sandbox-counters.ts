/** Counts by name (token requests, rejections, calls, ...), for tests and the operator's counters view. */
export class SandboxCounters {
  private readonly counts = new Map<string, number>();

  count(name: string, by = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + by);
  }

  counter(name: string): number {
    return this.counts.get(name) ?? 0;
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
