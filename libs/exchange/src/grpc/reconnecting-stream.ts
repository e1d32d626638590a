import { status as GrpcStatus } from '@grpc/grpc-js';
import { fullJitterDelay } from '@lib/core';

import type { FeedTiming } from './feed-timing.js';
import { type StreamStatus, statusName } from './stream-status.error.js';
import type { CallListener, UpstreamCall } from './upstream-call.js';

/** What follows a lost call: a reconnect after the backoff, one at once (a fallback), or what the family scheduled itself. */
export type AfterLoss = 'backoff' | 'now' | 'handled';

/** What one family of exchange stream (orders, a resumable feed, a market-data lane) adds to the shared lifecycle. */
export interface StreamFamily<M, Req = never> {
  /** True while a topic, a hold or a symbol needs the call; a lost call is reopened only then. */
  wanted(): boolean;
  /** Opens a call carrying `authorization`: what the family sends on open (its symbols, where it resumes). */
  open(authorization: string, listener: CallListener<M>): UpstreamCall<M, Req>;
  /** A message of the current call: what it means is the family's. */
  message(message: M): void;
  /**
   * The current call ended (its bearer already forgotten if UNAUTHENTICATED): the family fails the
   * opens a refusal answers (it stops wanting what it gave up), tells its topics, and says what follows.
   */
  lost(status: StreamStatus, call: UpstreamCall<M, Req>): AfterLoss;
  /** No call could be made (the open threw, e.g. unreadable protos): the opens waiting fail. */
  unopened(error: Error): void;
}

export interface ReconnectingStreamOptions {
  /** The bearer a new call carries (the provider's current token), and how the exchange's refusal of one is reported. */
  tokens: { authorization(): Promise<string>; rejected(authorization: string): void };
  timing: Pick<FeedTiming, 'backoffInitialMs' | 'backoffMaxMs'>;
  metrics: { reconnecting(code: string): void };
  warn(message: string): void;
}

/** The bearer of a gRPC target from a token provider (ExchangeTokenProvider), as a stream's `tokens` option. */
export function bearerOf(
  tokens: { authorization(target: string): Promise<string>; rejected(authorization: string): void },
  target: string,
): ReconnectingStreamOptions['tokens'] {
  return {
    authorization: () => tokens.authorization(target),
    rejected: (authorization) => tokens.rejected(authorization),
  };
}

/**
 * The lifecycle of one exchange streaming call, the same for every family: a token, then the call;
 * a lost call (UNAVAILABLE, silence, disconnect, server restart) reopened with full-jitter
 * exponential backoff while the family wants it (after an upstream restart the streams of every
 * gateway instance come back spread out); UNAUTHENTICATED makes the token provider forget that
 * bearer, so the next call carries a new one. A call is never cancelled to refresh its token: a
 * stream is authenticated once, when it starts, and outlives its token (upstream-facts, the
 * operator's streaming rules). `stop()` leaves no call, no pending attempt and no timer.
 */
export class ReconnectingStream<M, Req = never> {
  private current?: UpstreamCall<M, Req>;
  private connecting = false;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  /** Why the last attempt failed or the last call ended since the stream last delivered, for the message of an open that timed out. */
  lastProblem?: string;
  private readonly listener: CallListener<M> = {
    message: (call, message) => (call === this.current ? this.family.message(message) : undefined),
    ended: (call, status) => (call === this.current ? this.ended(call, status) : undefined),
  };

  constructor(
    private readonly family: StreamFamily<M, Req>,
    private readonly options: ReconnectingStreamOptions,
  ) {}

  /** The open call, if any (a bidirectional family writes on it). */
  get call(): UpstreamCall<M, Req> | undefined {
    return this.current;
  }

  /** A call is open, being opened, or due after the backoff. */
  get active(): boolean {
    return this.current !== undefined || this.connecting || this.timer !== undefined;
  }

  /** Opens a call unless one is open, being opened or due. */
  start(): void {
    if (!this.active) void this.connect();
  }

  /** Replaces the open call at once (a server-streaming call cannot change what it asked for). */
  restart(): void {
    this.current?.cancel();
    this.current = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.connecting) void this.connect();
  }

  /** The call delivers: the next loss starts from the initial delay, and no problem is pending. */
  delivered(): void {
    this.failures = 0;
    this.lastProblem = undefined;
  }

  /** Schedules the next attempt after the backoff; returns its delay (ms) for the log line. */
  schedule(): number {
    this.failures += 1;
    const delay = fullJitterDelay(
      this.failures,
      this.options.timing.backoffInitialMs,
      this.options.timing.backoffMaxMs,
    );
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, delay);
    this.timer.unref();
    return delay;
  }

  /** Ends the call and the pending attempt; a token request under way opens nothing unless the family wants a call again. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.failures = 0;
    this.current?.cancel();
    this.current = undefined;
  }

  private async connect(): Promise<void> {
    this.connecting = true;
    let authorization: string;
    try {
      authorization = await this.options.tokens.authorization();
    } catch (error) {
      this.connecting = false;
      return this.retry(`no exchange token (${(error as Error).message})`);
    }
    this.connecting = false;
    if (!this.family.wanted() || this.current) return;
    try {
      this.current = this.family.open(authorization, this.listener);
    } catch (error) {
      // Nothing a retry is likely to change (unreadable protos): the opens waiting fail, the rest keep trying.
      this.family.unopened(error as Error);
      this.retry((error as Error).message);
    }
  }

  private ended(call: UpstreamCall<M, Req>, status: StreamStatus): void {
    this.current = undefined;
    if (status.code === GrpcStatus.UNAUTHENTICATED) this.options.tokens.rejected(call.authorization);
    const next = this.family.lost(status, call);
    if (next === 'handled') return;
    if (next === 'now') return void this.connect();
    if (this.family.wanted()) this.options.metrics.reconnecting(statusName(status.code));
    this.retry(`${statusName(status.code)}: ${status.details}`);
  }

  private retry(reason: string): void {
    this.lastProblem = reason;
    if (!this.family.wanted()) return this.stop();
    const delay = this.schedule();
    this.options.warn(`stream lost (${reason}); reconnecting in ${delay} ms`);
  }
}
