import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  Clock,
  DomainError,
  ErrorCode,
  GATEWAY_CONFIG,
  REDIS,
  Readiness,
  type ReadinessReport,
  type RedisClient,
  ValidationError,
} from '@lib/core';
import { InstrumentDirectory } from '@lib/exchange';

import { LatchedSet } from './latched/latched-set.js';
import {
  SEVERITY,
  type TradingState,
  type TradingStateChange,
  type TradingStateRecord,
  scopeProblem,
  scopesOf,
} from './trading-state.js';
import { type ConfiguredIds, configuredIds } from './risk.config.js';
import { MemoryTradingStateStore, RedisTradingStateStore, type TradingStateStore } from './trading-state.store.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * The firm's trading states, latched in the store (Redis when configured) and held here in memory, so
 * the order path reads them with no round trip (the shared loop, LatchedSet: pushed to every instance,
 * re-read every `risk.stateResyncMs`). Fail closed: until the set has been read once (Redis down at
 * start), and while the last read is older than `risk.maxStateAgeMs` (Redis unreachable since), new
 * orders are refused 503 TRADING_STATE_UNKNOWN; cancels pass. A Redis that lost its data gets the
 * states this instance holds latched again (never an unannounced lift). Readiness (`trading-states`)
 * is degraded while the set is unknown (never read, or last read too long ago), never down: the
 * instance still serves cancels and reads, and a cancel must not lose its way in (a whole fleet started
 * while Redis was out would otherwise be out of rotation).
 */
@Injectable()
export class TradingStates implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(TradingStates.name);
  private readonly store: TradingStateStore;
  private readonly states: LatchedSet<TradingStateRecord>;
  private readonly resyncMs: number;
  private readonly maxAgeMs: number;
  /** The configured teams and clients: a state names one of them (or the firm, or a market). */
  private readonly known: ConfiguredIds;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient | null,
    private readonly clock: Clock,
    readiness: Readiness,
    private readonly directory: InstrumentDirectory,
  ) {
    this.store = redis
      ? new RedisTradingStateStore(redis, config.redis?.keyPrefix ?? '')
      : new MemoryTradingStateStore();
    this.resyncMs = config.risk.stateResyncMs;
    this.maxAgeMs = config.risk.maxStateAgeMs;
    this.known = configuredIds(config);
    this.states = new LatchedSet(this.store, { resyncMs: this.resyncMs, clock, redis, name: TradingStates.name });
    readiness.register('trading-states', () => this.readiness());
  }

  onModuleInit(): Promise<void> {
    return this.states.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.states.stop();
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

  /** The most severe state latched on any market: one an order whose market is not known may fall under. */
  anyMarket(): TradingStateRecord | undefined {
    let worst: TradingStateRecord | undefined;
    for (const record of this.states.values())
      if (record.scope.startsWith('market:') && (!worst || SEVERITY[record.state] > SEVERITY[worst.state]))
        worst = record;
    return worst;
  }

  private readiness(): ReadinessReport {
    const { readAt } = this.states;
    if (readAt === undefined)
      return { status: 'degraded', details: { reason: 'not read since start: new orders are refused' } };
    const ageMs = Math.round(this.clock.now() - readAt);
    return ageMs <= this.maxAgeMs
      ? { status: 'up', details: { ageMs } }
      : { status: 'degraded', details: { ageMs, reason: 'not read recently: new orders are refused' } };
  }

  /** Throws 503 TRADING_STATE_UNKNOWN unless the latched states were read, and recently enough (fail closed). */
  assertKnown(path: string): void {
    const now = this.clock.now();
    const { readAt } = this.states;
    if (readAt !== undefined && now - readAt <= this.maxAgeMs) return;
    // The last read as a wall-clock instant (a reader compares it with other clocks): its age on the steady clock, taken from the wall clock now.
    const lastRead = readAt === undefined ? null : new Date(this.clock.wallNow() - (now - readAt)).toISOString();
    const why =
      lastRead === null
        ? 'have not been read since this instance started'
        : `were last read at ${lastRead}, more than ${this.maxAgeMs} ms ago`;
    throw new DomainError(
      ErrorCode.TRADING_STATE_UNKNOWN,
      `The trading states ${why} (their store is unreachable): a latched halt may be in force, so new orders are refused. Cancels pass; nothing was sent.`,
      {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(this.resyncMs / 1_000))) },
        extensions: { lastRead, maxStateAgeMs: this.maxAgeMs, order: path },
      },
    );
  }

  stateOf(scope: string): TradingStateRecord | undefined {
    return this.states.get(scope);
  }

  list(): TradingStateRecord[] {
    return this.states.values();
  }

  /** The last `count` changes, newest first; 503 while their store cannot be read (the states in force are held here all the same). */
  async changes(count = 100): Promise<TradingStateChange[]> {
    try {
      return await this.store.changes(count);
    } catch (error) {
      throw new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        "The trading states' change history cannot be read (its store is unreachable).",
        { cause: error, headers: { 'Retry-After': '1' } },
      );
    }
  }

  /**
   * Latches `state` on `scope` (every change needs a reason and is recorded: who, when, old → new). The
   * old state is the one latched when the write lands (read in the same step by the store), not the one
   * this instance last saw: two operators at once make a chain. `expected`: the state the caller read;
   * another latched is refused 412 naming it, nothing changed. A scope naming no configured team or
   * client, or no market, is refused 400 naming `body.scope`, unless a state is latched on it already: a
   * team or client since removed from the config keeps its latched state until it is lifted.
   */
  async set(
    scope: string,
    state: TradingState,
    reason: string,
    by: string,
    expected?: TradingState,
  ): Promise<TradingStateChange> {
    const latched = this.states.get(scope);
    // A scope holding a latched state is taken whatever it names (an id since removed from the config
    // keeps its state until lifted, and may be halted again meanwhile).
    const problem = latched ? undefined : scopeProblem(scope, this.known);
    if (problem) throw new ValidationError([{ path: 'body.scope', message: problem }]);
    if (!latched && state !== 'active') await this.marketListed(scope);
    const record: TradingStateRecord = { scope, state, reason, by, at: new Date(this.clock.wallNow()).toISOString() };
    let written;
    try {
      written = await this.store.write(record, expected);
    } catch (error) {
      throw new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The trading state could not be latched (its store is unreachable); nothing changed.',
        { cause: error, extensions: { scope } },
      );
    }
    if ('current' in written) {
      // This instance may not have seen the change that came first: read the set again, so GET /admin/risk here shows it.
      await this.states.resync();
      throw new DomainError(
        ErrorCode.PRECONDITION_FAILED,
        `The trading state of ${scope} is ${written.current}, not ${expected}: another change came first. Read GET /admin/risk and try again; nothing changed.`,
        { extensions: { scope, state: written.current, expected } },
      );
    }
    const { change } = written;
    this.states.apply(scope, state === 'active' ? null : record);
    this.logger.warn(
      { tradingState: change },
      `trading state of ${scope}: ${change.from} → ${state} by ${by} (${reason})`,
    );
    return change;
  }

  /**
   * A market scope names a market the venue lists (its instrument list, which holds the retail slugs too:
   * one namespace), exactly as spelled there: a probe's halt of `market:AEC-NFL-BUF-KC-2026-11-22` (the
   * symbol is lower case), of `market:no-such-market` and of a name with a trailing dot each answered 200
   * and halted nothing. While no list can be had the name is taken (a halt must not wait on the exchange),
   * and the log says so.
   */
  private async marketListed(scope: string): Promise<void> {
    if (!scope.startsWith('market:')) return;
    const market = scope.slice('market:'.length);
    const listed = await this.directory.lists(market);
    if (listed === false)
      throw new ValidationError([
        {
          path: 'body.scope',
          message: `unknown market "${market.slice(0, 100)}": the venue lists no such symbol or slug (names are case-sensitive)`,
        },
      ]);
    if (listed === undefined)
      this.logger.warn(`market ${market} latched unchecked: the instrument list could not be read`);
  }
}
