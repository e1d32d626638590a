import { runSplittingRefusals } from './sql-errors.js';

/** One item waiting for its batch's statement. */
interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Items that arrive while a statement is under way go together in the next one: one round trip for
 * many calls under load, the same single round trip as before when alone. Items with the same `key`
 * never share a statement (a row may be changed once per statement); the batch is sorted by key, so
 * two writers lock rows in one order (no deadlock between instances).
 */
export class StatementBatcher<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private running = false;

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly run: (items: readonly T[]) => Promise<(item: T) => R>,
    private readonly maxItems: number,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      const batch: Waiting<T, R>[] = [];
      const later: Waiting<T, R>[] = [];
      const keys = new Set<string>();
      for (const waiting of this.waiting) {
        const key = this.keyOf(waiting.item);
        if (batch.length < this.maxItems && !keys.has(key)) {
          keys.add(key);
          batch.push(waiting);
        } else later.push(waiting);
      }
      this.waiting = later;
      batch.sort((a, b) => (this.keyOf(a.item) < this.keyOf(b.item) ? -1 : 1));
      // One item's value the server refuses fails the whole statement (nothing of it was done): its halves run again, so only that one fails.
      await runSplittingRefusals(
        batch,
        async (part) => {
          const resultOf = await this.run(part.map((waiting) => waiting.item));
          for (const waiting of part) waiting.resolve(resultOf(waiting.item));
        },
        (waiting, error) => waiting.reject(error),
      );
    }
    this.running = false;
  }
}
