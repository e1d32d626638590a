import { type ResumeCheckpoint, encodeCheckpoint, transactTimeOf } from './resume-checkpoint.js';

/** What a DropCopyAPI request resumes from: a token, a time, or neither (live). */
export interface ResumeRequest {
  resumeToken?: Buffer;
  resumeTime?: { seconds: number; nanos: number };
}

export type ResumeKind = 'token' | 'time' | 'live';

/** A step back after a refusal: what was refused, and what the next call resumes from instead. */
export interface ResumeStep {
  refused: ResumeKind;
  fallback: 'time' | 'live';
  /** `time`: the exchange time it replays from (epoch ms). */
  fromMs?: number;
}

const later = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

/**
 * Where a resumable feed's next call resumes from: the latest resume token, with the exchange time of
 * the newest record delivered up to it. When the exchange refuses the point a call resumed from, the
 * position steps back once: token → that time (a replay, deduplicated by the feed) → live (its first
 * batch then goes out as a `resync`). The next token kept ends the fallback.
 */
export class ResumePosition {
  private token?: Buffer;
  private atMs?: number;
  private fallback?: { fromMs: number } | 'live';
  private current: ResumeKind = 'live';
  /** The call started live after a refusal: clients may miss records, so its first batch is a `resync`. */
  resyncPending = false;

  /** `replayFromMs`: without a token, replay the exchange's retained log from this time rather than start live. */
  constructor(private readonly replayFromMs?: number) {}

  /** A new holding: from the stored checkpoint, or from the start. */
  reset(checkpoint: ResumeCheckpoint | undefined): void {
    this.token = checkpoint?.token;
    this.atMs = checkpoint?.atMs;
    this.fallback = undefined;
    this.resyncPending = false;
  }

  /** The resume point of the call about to open (remembered: a refusal steps back from it). */
  next(): ResumeRequest {
    const request = this.point();
    this.current = request.resumeToken ? 'token' : request.resumeTime ? 'time' : 'live';
    return request;
  }

  /** Records delivered (after deduplication): the newest one's time is where a refused token resumes from. */
  delivered(records: readonly Record<string, unknown>[]): void {
    for (const record of records) this.atMs = later(this.atMs, transactTimeOf(record));
  }

  /** The checkpoint text of `token` with the time delivered so far. */
  checkpoint(token: Buffer): string {
    return encodeCheckpoint({ token, atMs: this.atMs });
  }

  /** A batch's token: the next call resumes after it. */
  keep(token: Buffer): void {
    this.token = token;
    this.fallback = undefined;
  }

  /** The exchange refused the current call's resume point: the step taken, or undefined when the call was live already. */
  refused(): ResumeStep | undefined {
    if (this.current === 'live') return undefined;
    const fromMs = this.current === 'token' ? this.atMs : undefined;
    this.token = undefined;
    this.fallback = fromMs === undefined ? 'live' : { fromMs };
    this.resyncPending ||= fromMs === undefined;
    return { refused: this.current, fallback: fromMs === undefined ? 'live' : 'time', fromMs };
  }

  private point(): ResumeRequest {
    if (this.token) return { resumeToken: this.token };
    const from = this.fallback === 'live' ? undefined : (this.fallback?.fromMs ?? this.replayFromMs);
    return from === undefined ? {} : { resumeTime: { seconds: Math.floor(from / 1000), nanos: (from % 1000) * 1e6 } };
  }
}
