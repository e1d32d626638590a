/** Round trips kept: about the last few seconds at a busy instance's rate, the last minute at an idle one's. */
const SAMPLES = 128;

/**
 * This instance's Redis round trip, as its budget calls measure it (send to reply, `performance.now()`).
 * A steady latency (Redis in another zone, a slow link) shifts every decision by the same time: it
 * bunches nothing, so it must not count as lateness nor as an outage (issue 30). `allowanceMs` is the
 * fastest of the recent round trips, at most `boundMs`: decisions may be that much older before they
 * count as late, on top of `maxDecisionAgeMs`. The fastest, not a typical one: a starved event loop
 * delays answers by varying amounts (that variance is what bunches requests), but some still come
 * back quickly, so it leaves the floor where the path puts it. `timeoutMs` adds twice the upper tenth (at most twice
 * `boundMs`) to the configured command timeout, so a steady slow path does not time out while a
 * path that stops answering is still given up on after about the configured timeout plus that.
 */
export class RedisLatency {
  private readonly samples: number[] = [];
  private next = 0;
  allowanceMs = 0;
  timeoutMs: number;

  constructor(
    private readonly commandTimeoutMs: number,
    private readonly boundMs: number,
  ) {
    this.timeoutMs = commandTimeoutMs;
  }

  record(ms: number): void {
    if (this.samples.length < SAMPLES) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % SAMPLES;
  }

  /** Recomputes the allowance and the timeout from the samples (once per heartbeat: a sort of 128 numbers). */
  update(): void {
    if (this.samples.length < 3) return;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    this.allowanceMs = Math.min(this.boundMs, sorted[0]);
    this.timeoutMs = Math.round(this.commandTimeoutMs + 2 * Math.min(this.boundMs, at(0.9)));
  }
}
