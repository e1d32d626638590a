/**
 * Reads shared by the callers that ask for the same key at once, each caller's answer read after it
 * asked: a caller that comes while a read is in flight waits for the next read, which starts when that one
 * ends and serves everyone who came meanwhile. So at most two reads of a key are under way (one in flight,
 * one waiting), however many callers ask, and no caller gets a snapshot taken before it came (an order
 * inserted just before a cancel is in the cancel's snapshot).
 */
export class FreshReads<V> {
  private readonly inFlight = new Map<string, Promise<V>>();
  private readonly next = new Map<string, Promise<V>>();

  /** The value of a read of `key` started no earlier than this call; `read` runs only when no such read is under way or waiting. */
  get(key: string, read: () => Promise<V>): Promise<V> {
    const waiting = this.next.get(key);
    if (waiting) return waiting;
    const running = this.inFlight.get(key);
    if (!running) return this.start(key, read);
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    const queued = settled.then(() => {
      this.next.delete(key);
      return this.start(key, read);
    });
    this.next.set(key, queued);
    return queued;
  }

  private start(key: string, read: () => Promise<V>): Promise<V> {
    const running = read();
    this.inFlight.set(key, running);
    const done = () => {
      if (this.inFlight.get(key) === running) this.inFlight.delete(key);
    };
    running.then(done, done);
    return running;
  }
}
