import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ExchangeTokenProvider } from '@lib/auth';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, MetricsRegistry, REDIS, type RedisClient } from '@lib/core';
import {
  ACCOUNT_POLICY,
  FirstSnapshot,
  type TopicPolicy,
  type TopicSink,
  type TopicSource,
  UnknownTopicError,
} from '@lib/fanout';

import { ExchangeStreamMetrics, type KindMetrics, type StreamKind } from './exchange-stream.metrics.js';
import { FEED_TIMING } from './feed-timing.js';
import { type GrpcTarget, grpcTargetOf } from './grpc-target.js';
import { RecentIds } from './recent-ids.js';
import { OrderStreamTap } from './order-stream-tap.js';
import type { ExecutionMessage } from './order-updates.messages.js';
import { type AfterLoss, bearerOf, ReconnectingStream } from './reconnecting-stream.js';
import { type ResumeCheckpoint, decodeCheckpoint, transactTimeOf } from './resume-checkpoint.js';
import { ResumePosition, type ResumeRequest } from './resume-position.js';
import { ResumeTokenStore } from './resume-token.store.js';
import { ServerStreamingMethod } from './server-streaming-method.js';
import { type StreamStatus, isRefusal, statusName, streamRefused } from './stream-status.error.js';
import { type CallListener, UpstreamCall } from './upstream-call.js';
import type { ExchangeConfigView } from '../config/exchange.config.js';

export const EXCHANGE_DROP_COPY_TOPIC = 'exchange.dropcopy';
export const EXCHANGE_TRADES_TOPIC = 'exchange.trades';
const DROP_COPY_PROTO_FILE = 'polymarket/v1/dropcopy.proto';
const DROP_COPY_SERVICE = 'polymarket.v1.DropCopyAPI';
/** Keys remembered for deduplication: far more than a replay after a takeover repeats. */
const DEDUPLICATION_WINDOW = 200_000;
/** How the exchange refuses a resume point it does not know (restarted empty) or no longer holds (log trimmed). */
const RESUME_REFUSALS = new Set<GrpcStatus>([GrpcStatus.INVALID_ARGUMENT, GrpcStatus.OUT_OF_RANGE]);

interface DropCopyRequest extends ResumeRequest {
  symbols: string[];
  firms: string[];
}

/** Any DropCopyAPI batch: a resume token and the records under the call's own field name. */
type DropCopyResponse = { resumeToken: Buffer } & Record<string, unknown>;

type DropCopyCall = UpstreamCall<DropCopyResponse>;

/** What distinguishes one resumable DropCopyAPI feed from another. */
export interface ResumableFeedSpec {
  topic: string;
  kind: Exclude<StreamKind, 'marketData' | 'orders'>;
  /** The DropCopyAPI method. */
  call: string;
  /** The response field holding the batch's records; the topic's frames use the same name. */
  records: string;
  /** Deduplication key: a record whose key was delivered already is dropped. */
  key(record: Record<string, unknown>): string;
  /**
   * The resume token survives restarts and takeovers: with Redis as the topic's checkpoint (stored with
   * the batch it came with, see TopicSink.update), else in a file with this suffix. Without it the token
   * is kept in memory only (the topic's state is rebuilt on every open).
   */
  store?: string;
  /** `false`: a public call that acts for no participant (instrument state: scope read:instruments only). */
  participant?: false;
  /** Every call starts with the current state (instrument state): a call's first batch is the topic's snapshot, after a lost call a resync. */
  snapshotFirst?: true;
  /** Without a token, replay the exchange's retained log from this `resume_time` (epoch ms) rather than start live. */
  replayFromMs?: number;
}

export const DROP_COPY_SPEC: ResumableFeedSpec = {
  topic: EXCHANGE_DROP_COPY_TOPIC,
  kind: 'dropCopy',
  call: 'CreateDropCopySubscription',
  records: 'executions',
  // With its time: an exchange that restarted empty may number anew, and its E1 is not the E1 delivered before.
  key: (execution) => `${String(execution.id)}@${transactTimeOf(execution) ?? ''}`,
  store: 'dropcopy',
};

/** Trade capture: a trade re-sent with a later state (BUSTED, CLEARED) is new; the same id and state again is a duplicate. */
export const TRADES_SPEC: ResumableFeedSpec = {
  topic: EXCHANGE_TRADES_TOPIC,
  kind: 'trades',
  call: 'CreateTradeCaptureReportSubscription',
  records: 'tradeCaptureReports',
  key: (trade) => `${String(trade.id)}:${String(trade.state)}@${transactTimeOf(trade) ?? ''}`,
  store: 'trades',
};

/** Never conflated or dropped; a client that fell behind resumes from the replay window. */
export const EXCHANGE_DROP_COPY_POLICY: TopicPolicy = ACCOUNT_POLICY;

/**
 * The hub's source for one resumable DropCopyAPI topic (`exchange.dropcopy`, `exchange.trades`): the
 * firm's ONE call of that kind per environment (upstream-facts), held by whichever instance holds the
 * topic's cluster lease (the hub's leader election), `symbols=[]`, no deadline. Records are
 * deduplicated on the spec's key (delivery is at least once); each batch's new records go out as one
 * update `{<records>: [...]}` carrying its `resume_token` as the update's checkpoint. With Redis the
 * fan-out stores that checkpoint in the step that publishes the update, under the topic's lease: a
 * takeover resumes right after the last batch the cluster published, and a holder that lost its lease
 * without knowing it can move the token no further. Alone, the token is saved to a file once its
 * update is in the topic (and its replay window). A lost
 * call resumes from the latest token: nothing is missed, so clients see no resync. The topic's
 * snapshot is `{<records>: []}` (the exchange sends none); a client subscribing with `resumeFrom: 0`
 * gets every batch since the holder opened the stream, within the replay window. Instrument state
 * and position changes are specs of the same feed (see ResumableFeedSpec: no participant, the state
 * first, a replay from a time, the token in memory only).
 */
export class ResumableFeed implements TopicSource, OnApplicationShutdown {
  private readonly logger: Logger;
  private readonly grpc: GrpcTarget;
  private readonly participant?: string;
  private readonly metrics: KindMetrics;
  /** Single-instance mode only: with Redis the token is the topic's checkpoint. */
  private readonly store?: ResumeTokenStore;
  /** Epoch ms the last checkpoint was handed to the topic (Redis mode), for the age metric. */
  private checkpointedAt?: number;
  /** Where gateways before topic checkpoints kept the token in Redis: read only while the topic has no checkpoint (an upgrade). */
  private readonly legacy?: { redis: RedisClient; key: string };
  /** The current call has delivered nothing yet (a snapshot-first call's first batch is its state). */
  private fresh = false;
  private readonly stream: ReconnectingStream<DropCopyResponse>;
  private sink?: TopicSink;
  private readonly position: ResumePosition;
  private seen = new RecentIds(DEDUPLICATION_WINDOW);
  /** The open's wait for the exchange's first message; unset once the call was accepted. */
  private started?: FirstSnapshot;
  private readonly method: ServerStreamingMethod<DropCopyRequest, DropCopyResponse>;

  protected constructor(
    private readonly spec: ResumableFeedSpec,
    config: ExchangeConfigView,
    private readonly tokens: ExchangeTokenProvider,
    redis: RedisClient | null,
    registry: MetricsRegistry,
    private readonly clock: Clock,
  ) {
    this.logger = new Logger(`ResumableFeed ${spec.topic}`);
    this.grpc = grpcTargetOf(config);
    this.method = new ServerStreamingMethod(this.grpc, DROP_COPY_PROTO_FILE, DROP_COPY_SERVICE, spec.call);
    this.position = new ResumePosition(spec.replayFromMs);
    this.participant =
      spec.participant === false ? undefined : config.clients.flatMap((client) => client.participants)[0];
    const streams = ExchangeStreamMetrics.of(registry);
    this.metrics = streams.kind(spec.kind);
    this.stream = new ReconnectingStream(
      {
        wanted: () => this.sink !== undefined,
        open: (authorization, listener) => this.openCall(authorization, listener),
        message: (message) => this.received(message),
        lost: (status) => this.lost(status),
        unopened: (error) => this.refuseStart(error),
      },
      {
        tokens: bearerOf(tokens, this.grpc.target),
        timing: FEED_TIMING,
        metrics: this.metrics,
        warn: (message) => this.logger.warn(message),
      },
    );
    if (spec.store === undefined) return;
    streams.resumeTokenAge(spec.kind, () => {
      const savedAt = this.store?.savedAt ?? this.checkpointedAt;
      return savedAt === undefined ? undefined : this.clock.now() - savedAt;
    });
    if (redis) {
      this.legacy = {
        redis,
        key: `${config.redis?.keyPrefix ?? ''}exchange:${spec.store}:resume:${config.environment}`,
      };
      return;
    }
    const file =
      spec.kind === 'dropCopy'
        ? config.exchange.dropCopyResumeFile
        : `${config.exchange.dropCopyResumeFile}.${spec.store}`;
    this.store = new ResumeTokenStore(
      file,
      () => this.clock.now(),
      (message) => this.logger.warn(message),
    );
  }

  /** Resolves once the exchange accepted the call (its first message); the topic has no upstream snapshot. */
  async open(topic: string, sink: TopicSink): Promise<void> {
    if (topic !== this.spec.topic) throw new UnknownTopicError(topic);
    if (!this.tokens.configured || (!this.participant && this.spec.participant !== false))
      throw new DomainError(
        ErrorCode.UPSTREAM_AUTH_UNAVAILABLE,
        'No exchange client or participant is configured for this environment.',
      );
    this.stop();
    this.sink = sink;
    // A takeover or restart resumes after the last batch the cluster published (alone: this instance stored).
    this.position.reset(await this.resumeCheckpoint(sink));
    if (this.spec.store === undefined) {
      // Without a stored token the call starts over (a snapshot, or a replay the topic's state is folded from): nothing is a duplicate yet.
      this.seen = new RecentIds(DEDUPLICATION_WINDOW);
    } else {
      // A holder killed before storing its last tokens published batches after it: what this instance relayed of them is not sent again.
      for (const payload of sink.delivered ?? [])
        this.remember((payload as Record<string, unknown> | null)?.[this.spec.records]);
    }
    const started = new FirstSnapshot(FEED_TIMING.openTimeoutMs, () => {
      const last = this.stream.lastProblem ? ` (last: ${this.stream.lastProblem})` : '';
      return new DomainError(
        ErrorCode.UPSTREAM_UNAVAILABLE,
        `The exchange ${this.spec.call} sent nothing within ${FEED_TIMING.openTimeoutMs} ms${last}.`,
      );
    });
    this.started = started;
    this.stream.start();
    try {
      await started.ready;
    } catch (error) {
      this.close(topic);
      throw error;
    }
  }

  close(topic: string): void {
    if (topic !== this.spec.topic) return;
    this.sink = undefined;
    this.stop();
  }

  onApplicationShutdown(): void {
    this.sink = undefined;
    this.stop();
    this.method.close();
  }

  private stop(): void {
    this.stream.stop();
  }

  private openCall(authorization: string, listener: CallListener<DropCopyResponse>): DropCopyCall {
    // symbols [] and no firms: the whole firm. No deadline: a cancelled replay restarts from the same token.
    const request: DropCopyRequest = { symbols: [], firms: [], ...this.position.next() };
    this.fresh = true;
    const stream = this.method.call(request, authorization, this.participant);
    return new UpstreamCall<DropCopyResponse>(stream, authorization, false, listener, this.metrics, FEED_TIMING);
  }

  private async resumeCheckpoint(sink: TopicSink): Promise<ResumeCheckpoint | undefined> {
    if (this.spec.store === undefined) return undefined;
    if (!sink.lastCheckpoint) {
      const saved = this.store?.load();
      return saved ? decodeCheckpoint(saved) : undefined;
    }
    try {
      const checkpoint = (await sink.lastCheckpoint()) ?? (await this.legacy?.redis.get(this.legacy.key));
      return checkpoint ? decodeCheckpoint(checkpoint) : undefined;
    } catch (error) {
      this.logger.warn(`resume token not read (${(error as Error).message}); resuming live only`);
      return undefined;
    }
  }

  private received(message: DropCopyResponse): void {
    const sink = this.sink;
    if (!sink) return;
    if (this.spec.snapshotFirst && this.fresh) return this.snapshotReceived(sink, message);
    this.fresh = false;
    if (this.started || this.position.resyncPending) {
      // Started live after a refused resume point: what clients hold may miss records, so they get a resync.
      if (this.position.resyncPending) sink.gap();
      this.position.resyncPending = false;
      sink.snapshot({ [this.spec.records]: [] });
      this.started?.resolve();
      this.started = undefined;
    }
    this.stream.delivered();
    const records = (message[this.spec.records] ?? []) as Record<string, unknown>[];
    const fresh = this.remember(records);
    for (let i = fresh.length; i < records.length; i++) this.metrics.duplicateDropped();
    const token = message.resumeToken;
    if (fresh.length > 0) {
      this.position.delivered(fresh);
      // With Redis the token is stored with the update, only if the update is published; a batch of duplicates moves it no further (a takeover replays a little more, deduplicated).
      const checkpoint =
        sink.lastCheckpoint && this.spec.store !== undefined && token.length > 0
          ? this.position.checkpoint(token)
          : undefined;
      sink.update({ [this.spec.records]: fresh }, checkpoint);
      if (checkpoint) this.checkpointedAt = this.clock.now();
      this.metrics.delivered(fresh.length);
      this.tapped(fresh);
    }
    // Alone, saved only now: every execution of the batch is in the topic (and its replay window).
    this.keep(token);
  }

  /** The batch's new records, for the server side (a subclass's tap); never blocks the feed. */
  protected tapped(_records: readonly Record<string, unknown>[]): void {}

  /** A snapshot-first call's opening batch: the current state, replacing what clients hold after a lost call. */
  private snapshotReceived(sink: TopicSink, message: DropCopyResponse): void {
    this.fresh = false;
    const records = (message[this.spec.records] ?? []) as Record<string, unknown>[];
    this.remember(records);
    if (!this.started) sink.gap();
    sink.snapshot({ [this.spec.records]: records });
    this.started?.resolve();
    this.started = undefined;
    this.stream.delivered();
    this.keep(message.resumeToken);
  }

  private keep(token: Buffer): void {
    if (token.length === 0) return;
    this.position.keep(token);
    this.store?.save(this.position.checkpoint(token));
  }

  /** The records whose key was not seen yet; every key is seen afterwards. */
  private remember(records: unknown): Record<string, unknown>[] {
    return ((records ?? []) as Record<string, unknown>[]).filter((record) => this.seen.add(this.spec.key(record)));
  }

  private lost(status: StreamStatus): AfterLoss {
    if (this.resumeRefused(status)) return 'handled';
    if (this.started && isRefusal(status)) this.refuseStart(streamRefused(this.spec.kind, status));
    return 'backoff';
  }

  /** The open fails with `error`: the topic is given up (its `open` closes it), so nothing is reopened for it. */
  private refuseStart(error: Error): void {
    if (!this.started) return;
    this.started.reject(error);
    this.started = undefined;
    this.sink = undefined;
  }

  /**
   * The exchange refused where the call resumed from (a token it does not know after restarting
   * empty, or one its log no longer holds): the feed steps back once and goes on by itself, from the
   * time of its last checkpoint (deduplicated as ever), or failing that live, with a resync. Never a
   * topic that fails until someone deletes the stored token: the next batch's token replaces it.
   */
  private resumeRefused(status: StreamStatus): boolean {
    const step = this.sink && RESUME_REFUSALS.has(status.code) ? this.position.refused() : undefined;
    if (!step) return false;
    this.metrics.resumeRefused(step.fallback);
    const instead = step.fromMs === undefined ? 'live, with a resync' : `from ${new Date(step.fromMs).toISOString()}`;
    this.logger.warn(
      `the exchange refused the resume ${step.refused} (${statusName(status.code)}: ${status.details}); resuming ${instead} in ${this.stream.schedule()} ms`,
    );
    return true;
  }
}

/** `exchange.dropcopy` (scope read:dropcopy): the firm's executions, deduplicated on `execution.id`. */
@Injectable()
export class DropCopyFeed extends ResumableFeed {
  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    tokens: ExchangeTokenProvider,
    @Inject(REDIS) redis: RedisClient | null,
    registry: MetricsRegistry,
    clock: Clock,
    private readonly tap: OrderStreamTap,
  ) {
    super(DROP_COPY_SPEC, config, tokens, redis, registry, clock);
  }

  /** While this instance holds the firm's drop copy, its executions also reach the server side (UNKNOWN orders are sighted there). */
  protected override tapped(records: readonly Record<string, unknown>[]): void {
    this.tap.emitDropCopy(records as readonly ExecutionMessage[]);
  }
}

/** `exchange.trades` (scope read:dropcopy): trade capture reports; a later state of a trade replaces the earlier one. */
@Injectable()
export class TradeCaptureFeed extends ResumableFeed {
  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    tokens: ExchangeTokenProvider,
    @Inject(REDIS) redis: RedisClient | null,
    registry: MetricsRegistry,
    clock: Clock,
  ) {
    super(TRADES_SPEC, config, tokens, redis, registry, clock);
  }
}
