import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  Clock,
  DomainError,
  ErrorCode,
  GATEWAY_CONFIG,
  MetricsRegistry,
  REDIS,
  type RedisClient,
  ValidationError,
} from '@lib/core';
import { Counter, Gauge } from 'prom-client';

import { LatchedSet } from './latched/latched-set.js';
import { type ConfiguredIds, type RiskLimit, configuredIds, unknownScopeIds } from './risk.config.js';
import { RiskLimits } from './risk-limits.js';
import { type LimitsChange, type LimitsSetRecord, countsDiffer } from './risk-limits-set.js';
import { type LimitsStore, MemoryLimitsStore, RedisLimitsStore, SET_FIELD } from './risk-limits.store.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/**
 * The one owner of the risk limits in force (issue 26 item 4): config's `risk.limits`, unless an admin
 * set is latched (`PUT /admin/risk/limits`), which wins while it exists and survives restarts. Latched
 * as the trading states are (LatchedSet: Redis, pushed to every instance, re-read every
 * `risk.stateResyncMs`; memory of this process without Redis, lost on restart). Every consumer reads
 * `current()` at each use: the gate, the throttle, the open-order counts, the price band, the what-if.
 */
@Injectable()
export class RiskLimitsSource implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RiskLimitsSource.name);
  private readonly store: LimitsStore;
  private readonly set: LatchedSet<LimitsSetRecord>;
  private readonly configured: RiskLimits;
  private readonly known: ConfiguredIds;
  /** What the streams this instance started at boot can judge (they follow config's limits: see `check`). */
  private readonly feeds: { events: boolean; positions: boolean; counts: boolean };
  private readonly listeners: ((limits: RiskLimits, version: number) => void)[] = [];
  private readonly changed: Counter<'to'>;
  private held?: { version: number; limits: RiskLimits };
  /** The newest record seen (a re-read that began before a write never brings an older version back). */
  private newest?: LimitsSetRecord;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient | null,
    private readonly clock: Clock,
    registry: MetricsRegistry,
  ) {
    this.configured = new RiskLimits(config.risk.limits);
    this.known = configuredIds(config);
    const configured = config.risk.limits;
    this.feeds = {
      events: configured.some((limit) => limit.event !== undefined),
      positions: configured.some((limit) => limit.maxNetPosition !== undefined),
      counts: configured.some(
        (limit) =>
          limit.maxOpenOrders !== undefined ||
          limit.maxOpenNotional !== undefined ||
          limit.maxNetPosition !== undefined,
      ),
    };
    this.store = redis ? new RedisLimitsStore(redis, config.redis?.keyPrefix ?? '') : new MemoryLimitsStore();
    this.set = new LatchedSet(this.store, {
      resyncMs: config.risk.stateResyncMs,
      clock,
      redis,
      name: RiskLimitsSource.name,
      onChange: () => this.applied(),
    });
    this.changed = new Counter({
      name: 'gateway_risk_limit_changes_total',
      help: 'Changes of the risk limits in force made through this instance (to: admin set, or back to config)',
      labelNames: ['to'],
      registers: [registry],
    });
    const version = () => this.version();
    new Gauge({
      name: 'gateway_risk_limits_version',
      help: 'The version of the risk limits in force on this instance (0: config, else the admin set latched)',
      registers: [registry],
      collect() {
        this.set(version());
      },
    });
  }

  onModuleInit(): Promise<void> {
    return this.set.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.set.stop();
  }

  /** The limits in force now (one object per version: consumers keep no copy). */
  current(): RiskLimits {
    const record = this.newest;
    if (!record?.limits) return this.configured;
    if (this.held?.version !== record.version)
      this.held = { version: record.version, limits: new RiskLimits(record.limits) };
    return this.held.limits;
  }

  version(): number {
    return this.newest?.version ?? 0;
  }

  /** How the set in force came: config's, or an admin's (who, when, why). */
  describe(): { version: number; source: 'config' | 'admin'; by?: string; at?: string; reason?: string } {
    const record = this.newest;
    if (!record) return { version: 0, source: 'config' };
    const { version, by, at, reason } = record;
    return { version, source: record.limits ? 'admin' : 'config', by, at, reason };
  }

  /** The last `count` changes, newest first; 503 while their store cannot be read (the limits in force are held here all the same). */
  async changes(count = 50): Promise<LimitsChange[]> {
    try {
      return await this.store.changes(count);
    } catch (error) {
      throw new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        "The risk limits' change history cannot be read (its store is unreachable).",
        { cause: error, headers: { 'Retry-After': '1' } },
      );
    }
  }

  /** Calls `listener` whenever another version comes in force here (written here, pushed, or re-read). */
  onChange(listener: (limits: RiskLimits, version: number) => void): void {
    this.listeners.push(listener);
  }

  /** Reads the latched set again now (an instance that finds counts built for newer limits than it holds). */
  refresh(): Promise<void> {
    return this.set.resync();
  }

  /**
   * Replaces the limits in force on every instance (`limits` null: back to config's). `expected`: the
   * version the admin read; another in force is refused 412 naming it. Throws 400 for a limit naming an
   * unknown team or client, 503 when the store is unreachable (nothing changed).
   */
  async replace(limits: RiskLimit[] | null, reason: string, by: string, expected?: number): Promise<LimitsChange> {
    if (limits) this.check(limits);
    // This instance may not have seen the newest change yet: read the set again before calling the caller's stale.
    if (expected !== undefined && expected !== this.version()) await this.refresh();
    const current = this.version();
    if (expected !== undefined && expected !== current) throw stale(expected, current);
    const at = new Date(this.clock.wallNow()).toISOString();
    const from = [...this.current().limits];
    const record: LimitsSetRecord = { version: current + 1, limits, by, at, reason };
    const change: LimitsChange = { version: record.version, from, to: limits, by, at, reason };
    const recount = countsDiffer(from, limits ?? this.configured.limits);
    let moved;
    try {
      moved = await this.store.write(record, change, current, recount);
    } catch (error) {
      throw new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The risk limits could not be latched (their store is unreachable); nothing changed.',
        { cause: error },
      );
    }
    if (moved) {
      await this.refresh();
      throw stale(expected ?? current, moved.moved);
    }
    this.set.apply(SET_FIELD, record);
    this.applied();
    this.changed.inc({ to: limits ? 'admin' : 'config' });
    this.logger.warn(
      { riskLimits: { version: record.version, by, at, reason, limits: limits?.length ?? 'config' } },
      `risk limits → version ${record.version} (${limits ? `${limits.length} limits set` : "back to config's"}) by ${by} (${reason})${recount ? '; open-order counts rebuilt' : ''}`,
    );
    return change;
  }

  /**
   * A limit names a configured team or client (as config's own check), and needs no stream this
   * instance did not start: the event lookup, the position feeds and the retail order view follow
   * config's limits at boot, so a set that names events, net positions or open counts where config
   * names none is refused (a restart with config naming one enables them). Else 400 naming the field.
   */
  private check(limits: readonly RiskLimit[]): void {
    const restart = 'not while config names none (the streams it needs start at boot): add one to config and restart';
    const unknown = unknownScopeIds(limits, this.known).map(({ index, message }) => ({
      path: `body.limits.${index}.id`,
      message,
    }));
    const errors = limits.flatMap((limit, i) => {
      const found: { path: string; message: string }[] = [];
      if (limit.event !== undefined && !this.feeds.events)
        found.push({ path: `body.limits.${i}.event`, message: `a limit narrowed to an event: ${restart}` });
      if (limit.maxNetPosition !== undefined && !this.feeds.positions)
        found.push({ path: `body.limits.${i}.maxNetPosition`, message: `maxNetPosition: ${restart}` });
      for (const name of ['maxOpenOrders', 'maxOpenNotional'] as const)
        if (limit[name] !== undefined && !this.feeds.counts)
          found.push({ path: `body.limits.${i}.${name}`, message: `${name}: ${restart}` });
      return found;
    });
    if (unknown.length + errors.length > 0) throw new ValidationError([...unknown, ...errors]);
  }

  private applied(): void {
    const record = this.set.get(SET_FIELD);
    if (!record || (this.newest && record.version <= this.newest.version)) return;
    this.newest = record;
    const { version } = record;
    const limits = this.current();
    for (const listener of this.listeners) listener(limits, version);
  }
}

const stale = (expected: number, current: number) =>
  new DomainError(
    ErrorCode.PRECONDITION_FAILED,
    `The risk limits are at version ${current}, not ${expected}: another change came first. Read GET /admin/risk and try again; nothing changed.`,
    { extensions: { version: current, expected } },
  );
