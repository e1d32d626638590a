import { type ClientReadableStream, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';

import type { MarketDataMetrics } from './market-data.metrics.js';
import type { MarketDataResponseMessage, MarketDataUpdateMessage } from './market-data.messages.js';
import type { StreamStatus } from './stream-status.error.js';

/** Where one call reports; `call` tells the feed which of its (up to two) calls spoke. */
export interface CallListener {
  update(call: UpstreamCall, update: MarketDataUpdateMessage): void;
  /** Once, when the server ended the call or it went silent; never after `cancel()`. */
  ended(call: UpstreamCall, status: StreamStatus): void;
}

/** The token a call was opened with: a stream lives as long as it (spec §5.1.3). */
export interface StreamToken {
  authorization: string;
  /** Local epoch ms at which the token lapses. */
  expiresAt: number;
  lifetimeMs: number;
}

/**
 * One CreateMarketDataSubscription call: heartbeats counted and dropped, book messages passed on,
 * a silence watchdog, and a single end report whichever way the call ends.
 */
export class UpstreamCall {
  /** Book messages received; the first one is the stream's snapshot. */
  received = 0;
  private done = false;
  /** Fires after `silenceMs` without a message; every message pushes it back (refresh, not a new timer). */
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly stream: ClientReadableStream<MarketDataResponseMessage>,
    readonly token: StreamToken,
    private readonly listener: CallListener,
    private readonly metrics: MarketDataMetrics,
    private readonly silenceMs: number,
  ) {
    metrics.streamOpened();
    this.watchdog = setTimeout(() => {
      if (this.done) return;
      this.cancel();
      this.listener.ended(this, { code: GrpcStatus.UNAVAILABLE, details: `no message for ${this.silenceMs} ms` });
    }, this.silenceMs);
    this.watchdog.unref();
    stream.on('data', (message: MarketDataResponseMessage) => this.message(message));
    // Every final status comes as 'status'; 'error' repeats the non-OK ones and must have a listener.
    stream.on('status', (status: StreamStatus) => this.finish(status));
    stream.on('error', (error: ServiceError) => this.finish({ code: error.code, details: error.details }));
  }

  get authorization(): string {
    return this.token.authorization;
  }

  get expiresAt(): number {
    return this.token.expiresAt;
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
    if (message.event !== 'update') return;
    this.received += 1;
    this.listener.update(this, message.update);
  }

  private finish(status: StreamStatus): void {
    if (this.done) return;
    this.close();
    this.listener.ended(this, status);
  }

  private close(): void {
    this.done = true;
    clearTimeout(this.watchdog);
    this.metrics.streamClosed();
  }
}
