import type { Socket } from 'node:net';

import { WebSocket } from 'ws';

import type { StreamHolder } from '../capacity/stream-capacity.types.js';
import { type WireFrame, wsTextFrame } from '../hub/frame.codec.js';
import type { FanoutMetrics } from '../metrics/fanout.metrics.js';
import type { Viewer } from '../source/topic-source.types.js';

export interface HubClientOptions {
  /** Socket buffer plus hub queue beyond which a client with non-conflatable frames is closed (1013). */
  maxQueueBytes: number;
  /** Socket buffer beyond which the hub stops writing and queues (conflating where allowed). */
  highWaterBytes: number;
}

/** The slice of a topic a client queue needs: its name, whether it conflates, and how to catch up. */
export interface QueueTopic {
  readonly name: string;
  readonly conflate: boolean;
  catchUp(latest: WireFrame, skippedReset: boolean): WireFrame;
}

interface Pending {
  frame: WireFrame;
  topic: QueueTopic | undefined;
  /** A snapshot or resync was replaced in this slot: the client must get state, not just the last update. */
  skippedReset: boolean;
}

export const SLOW_CONSUMER_CLOSE_CODE = 1013;

let nextId = 1;

/**
 * One WebSocket client of the hub. Frames are written straight to its socket while the socket keeps
 * up; past `highWaterBytes` they wait in a queue where a conflating topic holds one slot (the latest
 * frame) and other frames line up until `maxQueueBytes`, when the client is closed with 1013.
 * Nothing here waits: a slow client costs the broadcast loop one comparison.
 */
export class HubClient {
  readonly id = nextId++;
  /** Frames a newer frame of the same topic replaced while this client was slow. */
  conflatedFrames = 0;
  /** Told, after the error message that said so, that the upstream gave up a topic this client held: that subscription is over. */
  onTopicEnded: ((topic: string) => void) | undefined;
  private pending: Pending[] | undefined;
  private head = 0;
  private slots: Map<string, Pending> | undefined;
  private pendingBytes = 0;
  private closed = false;
  private readonly socket: Socket;
  private readonly highWater: number;

  constructor(
    private readonly ws: WebSocket,
    private readonly options: HubClientOptions,
    private readonly metrics: FanoutMetrics,
    private readonly onGone: (client: HubClient) => void,
    /** Whose subscriptions these are, for the stream caps; a client without one is not counted. */
    readonly holder?: StreamHolder,
    /** What this client may see of topics with a view policy; without one it sees them whole. */
    readonly viewer?: Viewer,
  ) {
    this.socket = rawSocketOf(ws);
    // Below the socket's own high-water mark no 'drain' would ever tell us to flush the queue.
    this.highWater = Math.max(options.highWaterBytes, this.socket.writableHighWaterMark);
    this.socket.on('drain', () => this.flush());
    ws.once('close', () => this.gone());
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  /** Bytes waiting for this client: the socket buffer (`ws.bufferedAmount`) plus the hub queue. */
  get queuedBytes(): number {
    return this.ws.bufferedAmount + this.pendingBytes;
  }

  /** Writes or queues a topic frame; `true` when it went straight to the socket. */
  deliver(frame: WireFrame, topic: QueueTopic | undefined): boolean {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return false;
    if (this.pending === undefined && this.ws.bufferedAmount < this.highWater) {
      this.socket.write(frame.wire);
      return true;
    }
    this.enqueue(frame, topic);
    return false;
  }

  /** A message outside any topic (subscription acknowledgement, error), ordered with the frames. */
  sendJson(message: unknown): void {
    const frame: WireFrame = {
      topic: '',
      type: 'update',
      seq: 0,
      json: '',
      wire: wsTextFrame(Buffer.from(JSON.stringify(message))),
      receivedAt: performance.now(),
    };
    if (this.deliver(frame, undefined)) this.metrics.messagesOut.inc();
  }

  close(code: number, reason: string): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)
      this.ws.close(code, reason);
    this.gone();
  }

  private enqueue(frame: WireFrame, topic: QueueTopic | undefined): void {
    this.pending ??= [];
    if (topic?.conflate) {
      this.slots ??= new Map();
      const slot = this.slots.get(topic.name);
      if (slot) {
        this.pendingBytes += frame.wire.length - slot.frame.wire.length;
        slot.skippedReset ||= slot.frame.type !== 'update';
        slot.frame = frame;
        this.conflatedFrames += 1;
        this.metrics.conflatedFrames.inc();
        return;
      }
    }
    const entry: Pending = { frame, topic, skippedReset: false };
    if (topic?.conflate) this.slots?.set(topic.name, entry);
    this.pending.push(entry);
    this.pendingBytes += frame.wire.length;
    if (!topic?.conflate && this.queuedBytes > this.options.maxQueueBytes) this.overflow();
  }

  private flush(): void {
    const pending = this.pending;
    if (!pending || this.closed) return;
    while (this.head < pending.length && this.ws.bufferedAmount < this.highWater) {
      const entry = pending[this.head++];
      this.pendingBytes -= entry.frame.wire.length;
      if (entry.topic?.conflate) this.slots?.delete(entry.topic.name);
      const frame = entry.topic ? entry.topic.catchUp(entry.frame, entry.skippedReset) : entry.frame;
      this.socket.write(frame.wire);
      this.metrics.queuedSent(frame);
    }
    if (this.head === pending.length) {
      this.pending = undefined;
      this.slots = undefined;
      this.head = 0;
      this.pendingBytes = 0;
    } else if (this.head > 1_024 && this.head * 2 > pending.length) {
      pending.splice(0, this.head); // drop sent entries so their buffers can be freed
      this.head = 0;
    }
  }

  /** Account frames must never be skipped, so a client that cannot keep up is told to come back. */
  private overflow(): void {
    this.metrics.droppedClients.inc();
    this.close(SLOW_CONSUMER_CLOSE_CODE, 'send queue full: reconnect and resume');
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = undefined;
    this.slots = undefined;
    this.pendingBytes = 0;
    this.onGone(this);
  }
}

/**
 * The TCP socket under a server-side `ws` connection (the same object as the upgrade request's
 * `req.socket`). `ws` keeps it in `_socket` in every major version; the hub writes pre-framed
 * frames to it so one Buffer serves every client. Control frames `ws` sends itself (close, pong)
 * are written whole and synchronously, so they never interleave inside a frame.
 */
function rawSocketOf(ws: WebSocket): Socket {
  const socket = (ws as unknown as { _socket?: Socket | null })._socket;
  if (!socket || typeof socket.write !== 'function')
    throw new Error('the WebSocket is not connected: hand the hub an open server-side connection');
  return socket;
}
