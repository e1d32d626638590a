import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig, REDIS, type RedisClient } from '@lib/core';

import { SEVERITY, type TradingState, type TradingStateChange, type TradingStateRecord, scopesOf } from './trading-state.js';
import { MemoryTradingStateStore, RedisTradingStateStore, type TradingStateStore } from './trading-state.store.js';

/**
 * The firm's trading states, latched in the store (Redis when configured) and held here in memory, so
 * the order path reads them with no round trip: a change is pushed to every instance (pub/sub) and the
 * whole set is re-read every `risk.stateResyncMs`, so a lost push heals. While the store cannot be read
 * (Redis down at start) the last states read stay in force; none read yet means none latched.
 */
@Injectable()
export class TradingStates implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(TradingStates.name);
  private readonly store: TradingStateStore;
  private readonly resyncMs: number;
  private states = new Map<string, TradingStateRecord>();
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient | null,
    private readonly clock: Clock,
  ) {
    this.store = redis ? new RedisTradingStateStore(redis, config.redis?.keyPrefix ?? '') : new MemoryTradingStateStore();
    this.resyncMs = config.risk.stateResyncMs;
  }

  async onModuleInit(): Promise<void> {
    try {
      await this.store.watch((record) => this.apply(record));
    } catch (error) {
      this.logger.warn(`trading-state changes are not pushed to this instance (${String(error)}); it re-reads them every ${this.resyncMs} ms`);
    }
    await this.resync();
    this.timer = setInterval(() => void this.resync(), this.resyncMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.store.close();
  }

  /** The most severe state latched on any scope an order of this client on this market falls under (undefined: active). */
  verdict(client: { id: string; team: string }, market: string | undefined): TradingStateRecord | undefined {
    let worst: TradingStateRecord | undefined;
    for (const scope of scopesOf(client, market)) {
      const record = this.states.get(scope);
      if (record && (!worst || SEVERITY[record.state] > SEVERITY[worst.state])) worst = record;
    }
    return worst;
  }

  stateOf(scope: string): TradingStateRecord | undefined {
    return this.states.get(scope);
  }

  list(): TradingStateRecord[] {
    return [...this.states.values()];
  }

  changes(count = 100): Promise<TradingStateChange[]> {
    return this.store.changes(count);
  }

  /** Latches `state` on `scope` (every change needs a reason and is recorded: who, when, old → new). */
  async set(scope: string, state: TradingState, reason: string, by: string): Promise<TradingStateChange> {
    const from = this.states.get(scope)?.state ?? 'active';
    const record: TradingStateRecord = { scope, state, reason, by, at: new Date(this.clock.now()).toISOString() };
    const change: TradingStateChange = { ...record, from };
    try {
      await this.store.write(record, change);
    } catch (error) {
      throw new DomainError(ErrorCode.SERVICE_UNAVAILABLE, 'The trading state could not be latched (its store is unreachable); nothing changed.', { cause: error, extensions: { scope } });
    }
    this.apply(record);
    this.logger.warn({ tradingState: change }, `trading state of ${scope}: ${from} → ${state} by ${by} (${reason})`);
    return change;
  }

  private apply(record: TradingStateRecord): void {
    if (record.state === 'active') this.states.delete(record.scope);
    else this.states.set(record.scope, record);
  }

  private async resync(): Promise<void> {
    try {
      this.states = new Map((await this.store.all()).map((record) => [record.scope, record]));
    } catch (error) {
      this.logger.warn(`trading states not re-read (${String(error)}); the last ones read stay in force`);
    }
  }
}
