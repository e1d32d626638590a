/**
 * The wait of a topic source's `open` for the topic's first snapshot (or first answer): settled
 * once, by the snapshot (`resolve`), a refusal (`reject`), or, after `timeoutMs`, by what `expired`
 * returns (an error rejects, undefined resolves). Its timer never outlives it.
 */
export class FirstSnapshot {
  readonly ready: Promise<void>;
  private settle?: (error?: Error) => void;

  constructor(timeoutMs: number, expired: () => Error | undefined) {
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = expired();
        this.settle?.(error);
      }, timeoutMs);
      this.settle = (error) => {
        clearTimeout(timer);
        this.settle = undefined;
        if (error) reject(error);
        else resolve();
      };
    });
    // A rejection nobody awaits (the topic closed before its answer) must not become an unhandled one.
    this.ready.catch(() => undefined);
  }

  /** Not settled yet. */
  get pending(): boolean {
    return this.settle !== undefined;
  }

  resolve(): void {
    this.settle?.();
  }

  reject(error: Error): void {
    this.settle?.(error);
  }
}
