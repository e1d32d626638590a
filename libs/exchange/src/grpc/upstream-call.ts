import {
  type ClientDuplexStream,
  type ClientReadableStream,
  type ServiceError,
  status as GrpcStatus,
} from '@grpc/grpc-js';

import type { StreamGauge } from './exchange-stream.metrics.js';
import type { StreamStatus } from './stream-status.error.js';

/** Where one call reports; `call` tells the owner whether the report is from its current call. */
export interface CallListener<M> {
  message(call: UpstreamCall<M>, message: M): void;
  /** Once, when the server ended the call or it went silent; never after `cancel()`. */
  ended(call: UpstreamCall<M>, status: StreamStatus): void;
}

export interface CallTiming {
  silenceMs: number;
  keepAliveMs: number;
}

/**
 * One streaming call of any exchange service (market data, orders, drop copy): every message passed
 * on, a silence watchdog (upstream-facts: a stream silent for 180 s, not even a heartbeat, is dead),
 * a keep-alive request on a bidirectional call (the load balancer closes connections without
 * traffic), and a single end report whichever way the call ends.
 */
export class UpstreamCall<M, Req = never> {
  private done = false;
  /** Fires after `silenceMs` without a message; every message pushes it back (refresh, not a new timer). */
  private readonly watchdog: NodeJS.Timeout;
  private readonly keepAlive?: NodeJS.Timeout;

  constructor(
    private readonly stream: ClientReadableStream<M> | ClientDuplexStream<Req, M>,
    /** The bearer the call was opened with: an UNAUTHENTICATED end makes the provider forget it. */
    readonly authorization: string,
    readonly bidirectional: boolean,
    private readonly listener: CallListener<M>,
    private readonly metrics: StreamGauge,
    timing: CallTiming,
    /** The keep-alive request of a bidirectional call. */
    keepAliveRequest?: Req,
  ) {
    metrics.streamOpened();
    this.watchdog = setTimeout(() => {
      if (this.done) return;
      this.cancel();
      this.listener.ended(this, { code: GrpcStatus.UNAVAILABLE, details: `no message for ${timing.silenceMs} ms` });
    }, timing.silenceMs);
    this.watchdog.unref();
    if (bidirectional && keepAliveRequest !== undefined) {
      this.keepAlive = setInterval(() => this.write(keepAliveRequest), timing.keepAliveMs);
      this.keepAlive.unref();
    }
    stream.on('data', (message: M) => this.message(message));
    // Every final status comes as 'status'; 'error' repeats the non-OK ones and must have a listener.
    stream.on('status', (status: StreamStatus) => this.finish(status));
    stream.on('error', (error: ServiceError) => this.finish({ code: error.code, details: error.details }));
  }

  /** Sends a request on a bidirectional call (adds, removes, keep-alive); ignored once the call ended. */
  write(request: Req): void {
    if (this.done || !this.bidirectional) return;
    (this.stream as ClientDuplexStream<Req, M>).write(request);
  }

  /** Ends the call from this side; no end report follows. */
  cancel(): void {
    if (this.done) return;
    this.close();
    this.stream.cancel();
  }

  private message(message: M): void {
    if (this.done) return;
    this.watchdog.refresh();
    this.listener.message(this, message);
  }

  private finish(status: StreamStatus): void {
    if (this.done) return;
    this.close();
    this.listener.ended(this, status);
  }

  private close(): void {
    this.done = true;
    clearTimeout(this.watchdog);
    clearInterval(this.keepAlive);
    this.metrics.streamClosed();
  }
}
