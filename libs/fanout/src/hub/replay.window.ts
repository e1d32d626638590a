import type { ReplayWindowPolicy } from '../source/topic-source.types.js';
import type { WireFrame } from './frame.codec.js';

/** The last frames of one topic, already encoded, for clients that resume after a reconnect. */
export class ReplayWindow {
  private frames: WireFrame[] = [];
  private addedAt: number[] = [];
  private head = 0;

  constructor(private readonly policy: ReplayWindowPolicy) {}

  push(frame: WireFrame, now: number): void {
    this.frames.push(frame);
    this.addedAt.push(now);
    this.evict(now);
  }

  /** The frames held, oldest first. */
  held(): WireFrame[] {
    return this.frames.slice(this.head);
  }

  /** Forgets every frame: a new epoch numbers differently, so none of them can be replayed. */
  clear(): void {
    this.frames = [];
    this.addedAt = [];
    this.head = 0;
  }

  /**
   * Every frame after `seq`, or `undefined` when the window no longer holds all of them (the client
   * then needs a resync). An empty list means the client is already up to date.
   */
  after(seq: number, latestSeq: number, now: number): WireFrame[] | undefined {
    this.evict(now);
    if (seq === latestSeq) return [];
    if (seq > latestSeq) return undefined;
    const first = this.frames[this.head];
    if (!first || first.seq > seq + 1) return undefined;
    const missed = this.frames.slice(this.head + (seq + 1 - first.seq));
    // A relay that lost frames has holes: replaying across one would hide the loss from the client.
    const contiguous = missed.every((frame, i) => frame.seq === seq + 1 + i) && missed.at(-1)?.seq === latestSeq;
    return contiguous ? missed : undefined;
  }

  private evict(now: number): void {
    const oldest = now - this.policy.ms;
    while (
      this.head < this.frames.length &&
      (this.frames.length - this.head > this.policy.messages || this.addedAt[this.head] < oldest)
    ) {
      this.head += 1;
    }
    // Compact now and then instead of shifting on every frame.
    if (this.head > 1_024 && this.head * 2 > this.frames.length) {
      this.frames = this.frames.slice(this.head);
      this.addedAt = this.addedAt.slice(this.head);
      this.head = 0;
    }
  }
}
