import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, REDIS, type RedisClient, ValidationError } from '@lib/core';
import { OrderStreamTap, OrderUpdates } from '@lib/exchange';
import type { BudgetedReply } from '@lib/ratelimit';
import type { FastifyRequest } from 'fastify';

import { clientOf } from '../common/decorators/auth.decorators.js';
import { CREATING_OPERATIONS, type OrderOperation, isCancel } from '../orders/order-call.js';
import { LatchedSet } from './latched/latched-set.js';
import {
  type BreakerFigures,
  type BreakerRecord,
  type BreakerStore,
  MemoryBreakerStore,
  RedisBreakerStore,
} from './reject-breaker.store.js';
import { type BreakerConfig, configuredIds } from './risk.config.js';
import { RiskMetrics } from './risk.metrics.js';
import { type AwaitedOrder, STREAM_WAIT_MS, StreamRejects, answeredOrderIds } from './stream-rejects.js';
import { rejectsInAnswer, rejectsInError } from './upstream-reject.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** An order-entering call as the order path hands it over: its operation, its request, and the send (an exchange insert also names its participant and clordIds). */
interface WatchedCall<A> {
  operation: OrderOperation;
  request: FastifyRequest;
  account?: string;
  clordIds?: readonly string[];
  send: (admitted: A) => Promise<BudgetedReply>;
}

/**
 * The reject breaker (issue 26; hummingbot #462: reject storms get accounts banned): a client whose
 * orders meet `rejects` upstream rejects within `windowSeconds` has its new orders refused
 * (`403 RISK_BREAKER_OPEN`) for `coolOffSeconds`, on every instance; cancels pass. A reject is an
 * answer that refuses the order, or a reject the exchange order stream shows for an insert answered 200
 * (StreamRejects). The rejects are counted in Redis (one sorted set per client, a Lua script counts and
 * trips atomically); the open breakers are a latched set (LatchedSet, shared with the trading states:
 * pushed to every instance, re-read every `risk.stateResyncMs`, latched again after Redis lost its data),
 * so the order path reads only memory. Stamps are wall-clock instants (every instance compares them). An
 * admin resets a breaker sooner (POST /admin/risk/breakers/reset, with a reason). Redis unreachable:
 * rejects are counted in this instance only.
 */
@Injectable()
export class RejectBreaker implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RejectBreaker.name);
  private readonly store: BreakerStore;
  /** Trips counted while Redis was unreachable: in force on this instance alongside the shared ones. */
  private readonly fallback = new MemoryBreakerStore();
  private readonly open: LatchedSet<BreakerRecord>;
  private readonly config: BreakerConfig;
  /** The configured clients: a reset names one of them. */
  private readonly clients: ReadonlySet<string>;
  private readonly stream = new StreamRejects();
  private readonly resyncMs: number;
  private timer?: NodeJS.Timeout;
  private stopListening?: () => void;
  /** Releases this instance's hold on the order stream (while it awaits inserts' fates). */
  private releaseStream?: () => void;
  private lastInsertAt = 0;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient | null,
    private readonly clock: Clock,
    private readonly metrics: RiskMetrics,
    private readonly orderUpdates: OrderUpdates,
    private readonly tap: OrderStreamTap,
  ) {
    this.store = redis ? new RedisBreakerStore(redis, config.redis?.keyPrefix ?? '') : this.fallback;
    this.config = config.risk.breaker;
    this.clients = configuredIds(config).clients;
    this.resyncMs = config.risk.stateResyncMs;
    this.open = new LatchedSet(this.store, {
      resyncMs: this.resyncMs,
      clock,
      redis,
      name: RejectBreaker.name,
      inForce: (record) => record.until > clock.wallNow(),
    });
  }

  async onModuleInit(): Promise<void> {
    await this.open.start();
    if (this.config.rejects === 0 || this.config.orderStream === 'never') return;
    this.stopListening = this.tap.listen((update) => {
      const client = 'execution' in update ? this.stream.seen(update.execution) : undefined;
      if (client) void this.rejected(client, 1, 'stream');
    });
    this.timer = setInterval(() => this.sweepStream(), this.resyncMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.stopListening?.();
    this.releaseStream?.();
    await this.open.stop();
  }

  /** The figures that apply to `clientId`: its override, else the defaults. */
  figuresOf(clientId: string): BreakerFigures {
    const { rejects, windowSeconds, coolOffSeconds } = this.config;
    return { rejects, windowSeconds, coolOffSeconds, ...this.config.clients[clientId] };
  }

  /** Throws `RISK_BREAKER_OPEN` while the client's breaker is open. Reads memory only. */
  check(client: { id: string }, path: string): void {
    const now = this.clock.wallNow();
    const record = this.openRecord(client.id, now);
    if (!record) return;
    const until = new Date(record.until).toISOString();
    throw new DomainError(
      ErrorCode.RISK_BREAKER_OPEN,
      `The reject breaker of client ${client.id} is open: ${record.observed} upstream rejects within ${record.windowSeconds} s (limit ${record.limit} in ${record.windowSeconds} s); new orders are refused until ${until} or an admin resets it. Cancels pass; nothing was sent.`,
      {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil((record.until - now) / 1_000))) },
        extensions: {
          scope: `client:${client.id}`,
          limit: record.limit,
          windowSeconds: record.windowSeconds,
          observed: record.observed,
          since: new Date(record.since).toISOString(),
          until,
          order: path,
        },
      },
    );
  }

  /** Wraps an order-entering call's send so that the rejects it meets are counted, in its answer and on the order stream (cancels are left as they are). */
  watched<A, T extends WatchedCall<A>>(call: T): T {
    // A cancel's rejects are not counted: a cancel is never refused by a gateway rule, nor counted towards one.
    if (isCancel(call.operation) || this.config.rejects === 0) return call;
    const clientId = clientOf(call.request).id;
    const send = async (admitted: A) => {
      // Awaited from the send on (a call the checks refused sends nothing and awaits nothing).
      const awaited = this.awaitOnStream(call, clientId);
      let reply: BudgetedReply;
      try {
        reply = await call.send(admitted);
      } catch (error) {
        const rejects = rejectsInError(error);
        // An answer that refused the order: a reject the stream showed for it already was counted then.
        const counted = this.stream.answered(awaited, rejects > 0);
        await this.rejected(clientId, Math.max(0, rejects - counted), 'answer');
        throw error;
      }
      if (awaited.length > 0) {
        // The answer's order ids claim the stream rejects that could not be told apart before (a clordId another team also sent).
        const claimed = this.stream.placed(awaited, answeredOrderIds(reply.text, awaited.length));
        await this.rejected(clientId, claimed, 'stream');
      }
      await this.rejected(clientId, rejectsInAnswer(call.operation, reply.text), 'answer');
      return reply;
    };
    return { ...call, send };
  }

  /** The breakers open now (the admin view). */
  list(): BreakerRecord[] {
    const now = this.clock.wallNow();
    const clients = new Set([...this.open.values(), ...this.fallbackRecords()].map((record) => record.client));
    return [...clients]
      .map((client) => this.openRecord(client, now))
      .filter((record): record is BreakerRecord => record !== undefined);
  }

  /**
   * Closes the client's breaker on every instance; answers the record that was open, if one was. A
   * client the config does not declare is refused 400 naming `body.client` (a typo would reset nobody),
   * unless a breaker is open for it: one tripped before the client left the config can still be reset.
   */
  async reset(clientId: string): Promise<BreakerRecord | undefined> {
    const was = this.openRecord(clientId, this.clock.wallNow());
    if (!was && !this.clients.has(clientId))
      throw new ValidationError([
        { path: 'body.client', message: `unknown client "${clientId}" (not in the config; ids are case-sensitive)` },
      ]);
    try {
      await this.store.reset(clientId);
    } catch (error) {
      throw new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The breaker could not be reset (its store is unreachable); nothing changed.',
        { cause: error, headers: { 'Retry-After': '1' } },
      );
    }
    await this.fallback.reset(clientId);
    this.open.apply(clientId, null);
    return was;
  }

  /** The client's breaker in force at `now` (wall clock): the shared one, or one tripped here while Redis was unreachable. */
  private openRecord(clientId: string, now: number): BreakerRecord | undefined {
    const shared = this.open.get(clientId);
    const local = this.store === this.fallback ? undefined : this.fallback.get(clientId);
    const record = local && (!shared || local.until > shared.until) ? local : shared;
    return record && record.until > now ? record : undefined;
  }

  private fallbackRecords(): BreakerRecord[] {
    return this.store === this.fallback ? [] : this.fallback.records();
  }

  /** An exchange insert's orders are awaited on the order stream (held for it); answers them. */
  private awaitOnStream(
    call: Pick<WatchedCall<unknown>, 'operation' | 'account' | 'clordIds'>,
    clientId: string,
  ): AwaitedOrder[] {
    if (
      this.config.orderStream === 'never' ||
      !CREATING_OPERATIONS.includes(call.operation) ||
      !call.account ||
      !call.clordIds?.length
    )
      return [];
    this.lastInsertAt = this.clock.now();
    this.releaseStream ??= this.orderUpdates.hold();
    return this.stream.expect(clientId, call.account, call.clordIds, this.lastInsertAt);
  }

  /** Forgets inserts awaited too long; lets the order stream go a minute after the last insert. */
  private sweepStream(): void {
    const now = this.clock.now();
    const awaited = this.stream.sweep(now);
    if (awaited > 0 || now - this.lastInsertAt <= STREAM_WAIT_MS || !this.releaseStream) return;
    this.releaseStream();
    this.releaseStream = undefined;
  }

  /** Counts `count` rejects of the client; a trip is applied here at once, before the answer goes back. */
  private async rejected(clientId: string, count: number, source: 'answer' | 'stream'): Promise<void> {
    if (count === 0) return;
    const figures = this.figuresOf(clientId);
    if (figures.rejects === 0) return;
    this.metrics.breakerRejected(clientId, source, count);
    const now = this.clock.wallNow();
    let tripped: BreakerRecord | undefined;
    try {
      tripped = await this.store.count(clientId, count, figures, now);
    } catch (error) {
      this.logger.warn(`breaker rejects of ${clientId} counted on this instance only (${String(error)})`);
      tripped = await this.fallback.count(clientId, count, figures, now);
    }
    if (!tripped) return;
    this.open.apply(clientId, tripped);
    this.metrics.breakerTripped(clientId);
    this.logger.warn(
      { breaker: tripped },
      `reject breaker of ${clientId} tripped: ${tripped.observed} upstream rejects within ${figures.windowSeconds} s; new orders refused until ${new Date(tripped.until).toISOString()}`,
    );
  }
}
