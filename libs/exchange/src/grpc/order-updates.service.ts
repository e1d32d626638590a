import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ExchangeTokenProvider } from '@lib/auth';
import { DomainError, ErrorCode, GATEWAY_CONFIG, MetricsRegistry } from '@lib/core';
import {
  ACCOUNT_POLICY,
  FirstSnapshot,
  type TopicPolicy,
  type TopicSink,
  type TopicSource,
  UnknownTopicError,
} from '@lib/fanout';

import { ExchangeStreamMetrics, type KindMetrics } from './exchange-stream.metrics.js';
import { FEED_TIMING } from './feed-timing.js';
import { type GrpcTarget, grpcTargetOf } from './grpc-target.js';
import {
  type OrderResponseMessage,
  type OrderSubscriptionRequest,
  type OrdersSnapshot,
  type OrdersUpdate,
  WorkingOrders,
} from './order-updates.messages.js';
import { OrderStreamTap } from './order-stream-tap.js';
import { type AfterLoss, bearerOf, ReconnectingStream } from './reconnecting-stream.js';
import { ServerStreamingMethod } from './server-streaming-method.js';
import { type StreamStatus, isRefusal, streamRefused } from './stream-status.error.js';
import { type CallListener, UpstreamCall } from './upstream-call.js';
import type { ExchangeConfigView } from '../config/exchange.config.js';

export const EXCHANGE_ORDERS_PREFIX = 'exchange.orders.';
const ORDER_ENTRY_PROTO_FILE = 'polymarket/v1/order_entry.proto';
const ORDER_ENTRY_SERVICE = 'polymarket.v1.OrderEntryAPI';

type OrderCall = UpstreamCall<OrderResponseMessage>;

/** Account topic: every execution, never conflated or dropped; working orders folded in for late joiners. */
export const EXCHANGE_ORDERS_POLICY: TopicPolicy = { ...ACCOUNT_POLICY, fold: () => new WorkingOrders([]) };

/**
 * The hub's source for `exchange.orders.<participant>`: ONE CreateOrderSubscription per instance
 * (empty `symbols`; `accounts` = every participant the config names), opened with the first topic
 * and ended with the last, fanned out by the order's account: a topic's snapshot is its working
 * orders, then one update per execution (or cancel reject). The exchange has no resume token for
 * orders: a lost call is reopened with backoff, and its fresh snapshot reaches clients as a resync.
 */
@Injectable()
export class OrderUpdates implements TopicSource, OnApplicationShutdown {
  private readonly sinks = new Map<string, TopicSink>();
  private readonly waiting = new Map<string, FirstSnapshot[]>();
  /** Working orders by account, as of the current call's snapshot and executions since. */
  private working?: Map<string, WorkingOrders>;
  private readonly accounts: string[];
  private readonly grpc: GrpcTarget;
  private readonly metrics: KindMetrics;
  /** Holds of the server side (OrderStreamTap's listeners need the stream with no topic open). */
  private holds = 0;
  private readonly stream: ReconnectingStream<OrderResponseMessage>;
  private readonly method: ServerStreamingMethod<OrderSubscriptionRequest, OrderResponseMessage>;

  constructor(
    @Inject(GATEWAY_CONFIG) config: ExchangeConfigView,
    private readonly tokens: ExchangeTokenProvider,
    registry: MetricsRegistry,
    private readonly tap: OrderStreamTap,
  ) {
    this.grpc = grpcTargetOf(config);
    this.method = new ServerStreamingMethod(
      this.grpc,
      ORDER_ENTRY_PROTO_FILE,
      ORDER_ENTRY_SERVICE,
      'CreateOrderSubscription',
    );
    this.accounts = [...new Set(config.clients.flatMap((client) => client.participants))];
    this.metrics = ExchangeStreamMetrics.of(registry).kind('orders');
    const logger = new Logger(OrderUpdates.name);
    this.stream = new ReconnectingStream(
      {
        wanted: () => this.wanted(),
        open: (authorization, listener) => this.openCall(authorization, listener),
        message: (message) => this.received(message),
        lost: (status) => this.lost(status),
        unopened: (error) => this.refuseWaiting(error),
      },
      {
        tokens: bearerOf(tokens, this.grpc.target),
        timing: FEED_TIMING,
        metrics: this.metrics,
        warn: (message) => logger.warn(`exchange order updates: ${message}`),
      },
    );
  }

  /** Resolves once the participant's snapshot reached `sink`. */
  async open(topic: string, sink: TopicSink): Promise<void> {
    const participant = topic.startsWith(EXCHANGE_ORDERS_PREFIX) ? topic.slice(EXCHANGE_ORDERS_PREFIX.length) : '';
    if (!this.accounts.includes(participant)) throw new UnknownTopicError(topic);
    if (!this.tokens.configured)
      throw new DomainError(
        ErrorCode.UPSTREAM_AUTH_UNAVAILABLE,
        'No exchange client is configured for this environment.',
      );
    this.sinks.set(participant, sink);
    const orders = this.working?.get(participant);
    if (orders) return sink.snapshot(orders.snapshot());
    const first = new FirstSnapshot(FEED_TIMING.openTimeoutMs, () => this.noSnapshot());
    this.waiting.set(participant, [...(this.waiting.get(participant) ?? []).filter((waiter) => waiter.pending), first]);
    this.stream.start();
    try {
      await first.ready;
    } catch (error) {
      if (this.sinks.get(participant) === sink) this.close(topic);
      throw error;
    }
  }

  close(topic: string): void {
    this.sinks.delete(topic.slice(EXCHANGE_ORDERS_PREFIX.length));
    if (!this.wanted()) this.stop();
  }

  /**
   * Keeps the one order stream open with no topic subscribed, for the server side (resolving UNKNOWN
   * orders, journaling stream events through OrderStreamTap); returns the release. A no-op without an
   * exchange client or participant.
   */
  hold(): () => void {
    if (!this.tokens.configured || this.accounts.length === 0) return () => undefined;
    this.holds++;
    this.stream.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (!this.wanted()) this.stop();
    };
  }

  /**
   * The participant whose working orders hold `orderId`, as this instance's order stream shows them
   * now; undefined when none does (not working, not seen yet, or the stream is down). An order's
   * account never changes, so a participant named here owns the order even if it finished since.
   */
  workingOwnerOf(orderId: string): string | undefined {
    for (const [account, orders] of this.working ?? []) if (orders.has(orderId)) return account;
    return undefined;
  }

  /** Open while a topic or a hold needs it. */
  private wanted(): boolean {
    return this.sinks.size > 0 || this.holds > 0;
  }

  onApplicationShutdown(): void {
    this.sinks.clear();
    this.holds = 0;
    this.stop();
    this.method.close();
  }

  private stop(): void {
    this.stream.stop();
    this.working = undefined;
  }

  private noSnapshot(): DomainError {
    const last = this.stream.lastProblem ? ` (last: ${this.stream.lastProblem})` : '';
    return new DomainError(
      ErrorCode.UPSTREAM_UNAVAILABLE,
      `The exchange sent no order snapshot within ${FEED_TIMING.openTimeoutMs} ms${last}.`,
    );
  }

  private openCall(authorization: string, listener: CallListener<OrderResponseMessage>): OrderCall {
    // The call acts for one participant of the firm; `accounts` names every one the config allows.
    const stream = this.method.call({ symbols: [], accounts: this.accounts }, authorization, this.accounts[0]);
    return new UpstreamCall<OrderResponseMessage>(stream, authorization, false, listener, this.metrics, FEED_TIMING);
  }

  private received(message: OrderResponseMessage): void {
    if (message.event === 'snapshot') return this.snapshot(message.snapshot.orders);
    if (message.event !== 'update') return;
    for (const execution of message.update.executions) this.tap.emit({ execution });
    const reject = message.update.cancelReject;
    if (reject) this.tap.emit({ cancelReject: reject });
    if (!this.working) return;
    for (const execution of message.update.executions) this.deliver(execution.order?.account, { execution });
    if (reject) this.deliver(reject.account, { cancelReject: reject });
  }

  private snapshot(orders: OrdersSnapshot['orders']): void {
    this.stream.delivered();
    this.tap.emitSnapshot(orders);
    this.working = new Map(
      this.accounts.map((account) => [account, new WorkingOrders(orders.filter((order) => order.account === account))]),
    );
    for (const [participant, sink] of this.sinks) sink.snapshot(this.working.get(participant)!.snapshot());
    for (const [participant, waiters] of [...this.waiting]) {
      if (!this.sinks.has(participant)) continue;
      this.waiting.delete(participant);
      for (const waiter of waiters) waiter.resolve();
    }
  }

  private deliver(account: string | undefined, update: OrdersUpdate): void {
    if (account === undefined) return;
    const orders = this.working!.get(account);
    if (!orders) return;
    orders.apply(update);
    this.sinks.get(account)?.update(update);
    if ('execution' in update) this.metrics.delivered();
  }

  private lost(status: StreamStatus): AfterLoss {
    if (isRefusal(status)) this.refuseWaiting(streamRefused('orders', status));
    // No resume token for orders: clients hold stale state until the next call's snapshot.
    if (this.working) for (const sink of this.sinks.values()) sink.gap();
    this.working = undefined;
    return 'backoff';
  }

  private refuseWaiting(error: Error): void {
    for (const [participant, waiters] of [...this.waiting]) {
      this.waiting.delete(participant);
      this.sinks.delete(participant);
      for (const waiter of waiters) waiter.reject(error);
    }
  }
}
