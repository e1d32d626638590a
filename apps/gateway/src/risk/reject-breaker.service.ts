import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type BreakerConfig, Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig, REDIS, type RedisClient } from '@lib/core';
import type { BudgetedReply } from '@lib/ratelimit';
import type { FastifyRequest } from 'fastify';

import { clientOf } from '../common/decorators/auth.decorators.js';
import { type BreakerFigures, type BreakerRecord, type BreakerStore, MemoryBreakerStore, RedisBreakerStore } from './reject-breaker.store.js';
import { RiskMetrics } from './risk.metrics.js';
import { rejectsInAnswer, rejectsInError } from './upstream-reject.js';

/** An order-entering call as the order path hands it over: its operation, its request, and the send. */
interface WatchedCall<A> {
  operation: string;
  request: FastifyRequest;
  send: (admitted: A) => Promise<BudgetedReply>;
}

/** Operations whose rejects are not counted: a cancel is never refused by a gateway rule, nor counted towards one. */
const CANCELS: ReadonlySet<string> = new Set(['exchange.cancel', 'retail.cancel', 'retail.cancelAll']);

/**
 * The reject breaker (issue 26; hummingbot #462: reject storms get accounts banned): a client whose
 * orders meet `rejects` upstream rejects within `windowSeconds` has its new orders refused
 * (`403 RISK_BREAKER_OPEN`) for `coolOffSeconds`, on every instance; cancels pass. The rejects are
 * counted in Redis (one sorted set per client, a Lua script counts and trips atomically) and a trip is
 * pushed to every instance (pub/sub) and re-read every `risk.stateResyncMs`, so the order path reads
 * only memory. An admin resets it sooner (POST /admin/risk/breakers/reset, with a reason). Redis
 * unreachable: rejects are counted in this instance only.
 */
@Injectable()
export class RejectBreaker implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RejectBreaker.name);
  private readonly store: BreakerStore;
  private readonly fallback = new MemoryBreakerStore();
  private readonly config: BreakerConfig;
  private readonly resyncMs: number;
  private open = new Map<string, BreakerRecord>();
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient | null,
    private readonly clock: Clock,
    private readonly metrics: RiskMetrics,
  ) {
    this.store = redis ? new RedisBreakerStore(redis, config.redis?.keyPrefix ?? '') : this.fallback;
    this.config = config.risk.breaker;
    this.resyncMs = config.risk.stateResyncMs;
  }

  async onModuleInit(): Promise<void> {
    await this.store.watch((client, record) => this.apply(client, record)).catch((error: unknown) => this.logger.warn(`breaker trips are not pushed to this instance (${String(error)})`));
    await this.resync();
    this.timer = setInterval(() => void this.resync(), this.resyncMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.store.close();
  }

  /** The figures that apply to `clientId`: its override, else the defaults. */
  figuresOf(clientId: string): BreakerFigures {
    const { rejects, windowSeconds, coolOffSeconds } = this.config;
    return { rejects, windowSeconds, coolOffSeconds, ...this.config.clients[clientId] };
  }

  /** Throws `RISK_BREAKER_OPEN` while the client's breaker is open. Reads memory only. */
  check(client: { id: string }, path: string): void {
    const record = this.open.get(client.id);
    const now = this.clock.now();
    if (!record || record.until <= now) return;
    const until = new Date(record.until).toISOString();
    throw new DomainError(
      ErrorCode.RISK_BREAKER_OPEN,
      `The reject breaker of client ${client.id} is open: ${record.observed} upstream rejects within ${record.windowSeconds} s (limit ${record.limit} in ${record.windowSeconds} s); new orders are refused until ${until} or an admin resets it. Cancels pass; nothing was sent.`,
      {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil((record.until - now) / 1_000))) },
        extensions: { scope: `client:${client.id}`, limit: record.limit, windowSeconds: record.windowSeconds, observed: record.observed, since: new Date(record.since).toISOString(), until, order: path },
      },
    );
  }

  /** Wraps an order-entering call's send so that the rejects it meets are counted (cancels are left as they are). */
  watched<A, T extends WatchedCall<A>>(call: T): T {
    if (CANCELS.has(call.operation) || this.config.rejects === 0) return call;
    const clientId = clientOf(call.request).id;
    const send = async (admitted: A) => {
      let reply: BudgetedReply;
      try {
        reply = await call.send(admitted);
      } catch (error) {
        await this.rejected(clientId, rejectsInError(error));
        throw error;
      }
      await this.rejected(clientId, rejectsInAnswer(reply.text));
      return reply;
    };
    return { ...call, send };
  }

  /** The breakers open now (the admin view). */
  list(): BreakerRecord[] {
    const now = this.clock.now();
    return [...this.open.values()].filter((record) => record.until > now);
  }

  /** Closes the client's breaker on every instance; answers the record that was open, if one was. */
  async reset(clientId: string): Promise<BreakerRecord | undefined> {
    const was = this.list().find((record) => record.client === clientId);
    try {
      await this.store.reset(clientId);
    } catch (error) {
      throw new DomainError(ErrorCode.SERVICE_UNAVAILABLE, 'The breaker could not be reset (its store is unreachable); nothing changed.', { cause: error, headers: { 'Retry-After': '1' } });
    }
    await this.fallback.reset(clientId);
    this.apply(clientId, null);
    return was;
  }

  /** Counts `count` rejects of the client; a trip is applied here at once, before the answer goes back. */
  private async rejected(clientId: string, count: number): Promise<void> {
    if (count === 0) return;
    const figures = this.figuresOf(clientId);
    if (figures.rejects === 0) return;
    const now = this.clock.now();
    let tripped: BreakerRecord | undefined;
    try {
      tripped = await this.store.count(clientId, count, figures, now);
    } catch (error) {
      this.logger.warn(`breaker rejects of ${clientId} counted on this instance only (${String(error)})`);
      tripped = await this.fallback.count(clientId, count, figures, now);
    }
    if (!tripped) return;
    this.apply(clientId, tripped);
    this.metrics.breakerTripped(clientId);
    this.logger.warn({ breaker: tripped }, `reject breaker of ${clientId} tripped: ${tripped.observed} upstream rejects within ${figures.windowSeconds} s; new orders refused until ${new Date(tripped.until).toISOString()}`);
  }

  private apply(clientId: string, record: BreakerRecord | null): void {
    if (record) this.open.set(clientId, record);
    else this.open.delete(clientId);
  }

  private async resync(): Promise<void> {
    try {
      const now = this.clock.now();
      const read = (await this.store.all()).filter((record) => record.until > now);
      // A local trip (Redis was unreachable when it was counted) stays in force alongside the shared ones.
      for (const record of await this.fallback.all()) if (record.until > now && !read.some((shared) => shared.client === record.client)) read.push(record);
      this.open = new Map(read.map((record) => [record.client, record]));
    } catch (error) {
      this.logger.debug(`breakers not re-read (${String(error)}); the last ones read stay in force`);
    }
  }
}
