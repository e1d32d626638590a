import type { LogRecord } from './drop-copy-log.js';
import type { DropCopyLog } from './drop-copy-log.js';
import type { DeliveryFaults } from './drop-copy-feed.js';
import type { ProtoRecord } from '../wire/stream-records.js';
import { ServerStream, type StreamingCall } from '../server-stream.js';
import type { StreamPool } from '../stream-pool.js';

/** What one drop-copy call makes of the log: the records it carries and its response shape. */
export interface LogView {
  /** The record as an item of this stream's response list, or undefined when the stream does not carry it. */
  item(record: LogRecord): ProtoRecord | undefined;
  batch(resumeToken: Buffer, items: ProtoRecord[]): unknown;
}

export interface LogStreamTerms {
  call: string;
  firm: string;
  clientId: string;
  maxStreams: number;
  batchSize: number;
  heartbeatMs: number;
}

const TOKEN = /^dc1:(\d+)(?::(\d+))?$/;

/** The opaque resume token of a log position; a log restarted empty (`incarnation` > 0) names its incarnation. */
export function resumeToken(seq: number, incarnation = 0): Buffer {
  return Buffer.from(incarnation === 0 ? `dc1:${seq}` : `dc1:${seq}:${incarnation}`);
}

/** The log position a resume token names, or undefined when this exchange (this incarnation of its log) did not issue it. */
export function tokenPosition(token: Buffer, incarnation = 0): number | undefined {
  const match = TOKEN.exec(token.toString('latin1'));
  return match && Number(match[2] ?? 0) === incarnation ? Number(match[1]) : undefined;
}

/**
 * One drop-copy stream: the backlog from the resume point in batches, an empty batch once caught up
 * (a token and no records), then live records batched per engine operation, with an empty batch as
 * heartbeat. Every batch carries the token of the last log position it covers.
 */
export class LogStream extends ServerStream<unknown> {
  private stopFollowing?: () => void;
  private pending: ProtoRecord[] = [];
  private flushQueued = false;
  private lastSeen: number;
  private outbox: Promise<void> = Promise.resolve();
  private delayed = 0;

  constructor(
    grpc: StreamingCall,
    pool: StreamPool,
    private readonly log: DropCopyLog,
    private readonly view: LogView,
    private readonly faults: () => DeliveryFaults,
    private readonly terms: LogStreamTerms,
  ) {
    super(grpc, terms.call, terms.firm, terms.clientId, pool);
    this.lastSeen = log.head;
  }

  /** Joins the pool, sends `snapshot` (if any) and the `backlog` (if a resume point was given), then follows the log. */
  open(backlog: LogRecord[] | undefined, snapshot?: ProtoRecord[]): boolean {
    if (!this.join(this.terms.maxStreams)) return false;
    if (snapshot) this.send(snapshot);
    if (backlog) this.replay(backlog);
    this.lastSeen = this.log.head;
    this.stopFollowing = this.log.follow((record) => this.live(record));
    // Through `send`, so a heartbeat's token never overtakes a delayed batch of records.
    this.heartbeatEvery(this.terms.heartbeatMs, () => this.pending.length === 0 && this.send([]));
    return true;
  }

  protected onEnd(): void {
    this.stopFollowing?.();
  }

  private replay(backlog: LogRecord[]): void {
    let items: ProtoRecord[] = [];
    for (const record of backlog) {
      const item = this.view.item(record);
      this.lastSeen = record.seq;
      if (!item) continue;
      items.push(item);
      if (items.length === this.terms.batchSize) {
        this.send(items);
        items = [];
      }
    }
    if (items.length > 0) this.send(items);
    // Caught up: no marker upstream, only a batch with a token and no records.
    this.lastSeen = this.log.head;
    this.send([]);
  }

  private live(record: LogRecord): void {
    this.lastSeen = record.seq;
    const item = this.view.item(record);
    if (!item) return;
    this.pending.push(item);
    if (this.flushQueued) return;
    // Records of one engine operation arrive synchronously: they leave as one batch.
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      const items = this.pending;
      this.pending = [];
      this.send(items);
    });
  }

  private send(items: ProtoRecord[]): void {
    const message = this.view.batch(resumeToken(this.lastSeen, this.log.incarnation), items);
    const { delayMs, duplicate } = this.faults();
    const emit = () => {
      this.write(message);
      if (duplicate) this.write(message);
    };
    if (delayMs <= 0 && this.delayed === 0) return emit();
    this.delayed++;
    this.outbox = this.outbox
      .then(() => (delayMs > 0 ? new Promise((resolve) => setTimeout(resolve, delayMs)) : undefined))
      .then(() => {
        this.delayed--;
        emit();
      });
  }
}
