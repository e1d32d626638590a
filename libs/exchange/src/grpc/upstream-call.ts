import { type ClientDuplexStream, type ClientReadableStream, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';

import type { MarketDataMetrics } from './market-data.metrics.js';
import type { MarketDataResponseMessage, MarketDataStreamRequest, MarketDataUpdateMessage } from './market-data.messages.js';
import type { StreamStatus } from './stream-status.error.js';

/** Where one call reports; `call` tells the lane whether the report is from its current call. */
export interface CallListener {
  update(call: UpstreamCall, update: MarketDataUpdateMessage): void;
  /** Once, when the server ended the call or it went silent; never after `cancel()`. */
  ended(call: UpstreamCall, status: StreamStatus): void;
}

type ServerStream = ClientReadableStream<MarketDataResponseMessage>;
type DuplexStream = ClientDuplexStream<MarketDataStreamRequest, MarketDataResponseMessage>;

export interface CallTiming {
  silenceMs: number;
  keepAliveMs: number;
}

/**
 * One market-data call, BiDirectionalStreamMarketData or CreateMarketDataSubscription: heartbeats
 * counted and dropped, book messages passed on, a silence watchdog, a keep-alive request on a
 * bidirectional call (the load balancer closes connections without traffic), and a single end
 * report whichever way the call ends.
 */
export class UpstreamCall {
  private done = false;
  /** Fires after `silenceMs` without a message; every message pushes it back (refresh, not a new timer). */
  private readonly watchdog: NodeJS.Timeout;
  private readonly keepAlive?: NodeJS.Timeout;

  constructor(
    private readonly stream: ServerStream | DuplexStream,
    /** The bearer the call was opened with: an UNAUTHENTICATED end makes the provider forget it. */
    readonly authorization: string,
    readonly bidirectional: boolean,
    private readonly listener: CallListener,
    private readonly metrics: MarketDataMetrics,
    timing: CallTiming,
  ) {
    metrics.streamOpened();
    this.watchdog = setTimeout(() => {
      if (this.done) return;
      this.cancel();
      this.listener.ended(this, { code: GrpcStatus.UNAVAILABLE, details: `no message for ${timing.silenceMs} ms` });
    }, timing.silenceMs);
    this.watchdog.unref();
    if (bidirectional) {
      this.keepAlive = setInterval(() => this.write({}), timing.keepAliveMs);
      this.keepAlive.unref();
    }
    stream.on('data', (message: MarketDataResponseMessage) => this.message(message));
    // Every final status comes as 'status'; 'error' repeats the non-OK ones and must have a listener.
    stream.on('status', (status: StreamStatus) => this.finish(status));
    stream.on('error', (error: ServiceError) => this.finish({ code: error.code, details: error.details }));
  }

  /** Sends a request on a bidirectional call (adds, removes, keep-alive); ignored once the call ended. */
  write(request: MarketDataStreamRequest): void {
    if (this.done || !this.bidirectional) return;
    (this.stream as DuplexStream).write(request);
  }

  /** Ends the call from this side; no end report follows. */
  cancel(): void {
    if (this.done) return;
    this.close();
    this.stream.cancel();
  }

  private message(message: MarketDataResponseMessage): void {
    if (this.done) return;
    this.watchdog.refresh();
    this.metrics.received(message.event);
    if (message.event === 'update') this.listener.update(this, message.update);
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
