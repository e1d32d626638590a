import { Inject, Injectable, Optional } from '@nestjs/common';

import { GATEWAY_CONFIG } from '../config/config.module.js';
import type { BulkheadsConfig, ClientBulkheadConfig, TeamBulkheadConfig } from '../config/bulkheads.schema.js';
import type { HttpConfig } from '../config/config.schema.js';
import { DomainError } from '../errors/domain.error.js';
import { ErrorCode } from '../errors/error-code.js';
import { MetricsRegistry } from '../metrics/metrics.registry.js';
import { BulkheadMetrics } from './bulkhead.metrics.js';

/** `ordinary` calls share an origin's main pool; `blocking` ones (calls that hold their connection until the upstream is done) have a pool of their own. */
export type Lane = 'ordinary' | 'blocking';

/** Who one call is made for, and where it goes. */
export interface InFlightCall {
  /** The origin's pool (its URL's `scheme://authority`). */
  origin: string;
  /** The upstream surface the call goes to, by the name its lib gives it: named in the refusal. */
  surface: string;
  lane: Lane;
  team?: string;
  client?: string;
  /** Counted, never refused: a cancel is never blocked by a gateway rule. */
  exempt?: boolean;
}

/** Config names of the bounds, as a refusal names them (`cap`). */
export type InFlightCap =
  'bulkheads.perClient' | 'bulkheads.perTeam' | 'bulkheads.blocking.perClient' | 'bulkheads.blocking.perTeam';

/**
 * A pool that is not an origin's (a database's connections, say), bounded per team by its owner: its
 * calls wait in line at most `waitMs`, then are refused naming `cap`, as an origin's are.
 */
export interface OwnPool {
  /** Counts and queues the pool under this name, and is the refusal's `surface`. */
  name: string;
  /** Config name of the bound, as the refusal names it (`cap`). */
  cap: string;
  perTeam: number;
  waitMs: number;
}

/** Past a bound on calls in flight: 429, before any budget is spent, naming the bound (`cap`, its config name) and its value. */
export class InFlightLimitedError extends DomainError {
  constructor(cap: string, limit: number, who: string, call: InFlightCall) {
    const what = call.lane === 'blocking' ? 'blocking calls' : 'calls';
    super(
      ErrorCode.IN_FLIGHT_LIMITED,
      `${who} already has ${limit} ${call.surface} ${what} in flight (${cap} is ${limit}); retry when one has been answered.`,
      {
        headers: { 'Retry-After': '1' },
        extensions: { cap, limit, surface: call.surface, lane: call.lane },
      },
    );
  }
}

interface Waiter {
  call: InFlightCall;
  keys: Gate[];
  admit: (release: () => void) => void;
  timer?: NodeJS.Timeout;
}

/** One bound a call must pass: its counter key, value, config name and whose it is (`team desk`). */
interface Gate {
  key: string;
  cap: number | undefined;
  name: string;
  who: string;
}

/** What the bulkheads read of the config: the pools, the bounds, and each team's and client's own. */
export interface BulkheadsConfigView {
  http: Pick<HttpConfig, 'connectionsPerOrigin'>;
  bulkheads: BulkheadsConfig;
  teams: readonly { id: string; bulkhead?: TeamBulkheadConfig }[];
  clients: readonly { id: string; bulkhead?: ClientBulkheadConfig }[];
}

/**
 * The bulkheads of issue 25: how many upstream calls each team and each client has in flight to each
 * origin's pool on this instance, and the bounds that keep one team from taking the connections
 * another needs (BulkheadsSchema). `enter` runs before any budget is spent: it gives a place at once,
 * or after waiting in line (FIFO per pool) for at most the wait allowed, or refuses naming the bound.
 */
@Injectable()
export class Bulkheads {
  private readonly counts = new Map<string, number>();
  private readonly queues = new Map<string, Waiter[]>();
  private readonly teamCaps = new Map<string, { ordinary: number; blocking: number }>();
  private readonly clientCaps = new Map<string, { ordinary?: number; blocking?: number; maxBlockSeconds?: number }>();
  private readonly defaults: {
    ordinary: number;
    blocking: number;
    clientOrdinary?: number;
    clientBlocking?: number;
    maxBlockSeconds: number;
  };
  private readonly queueMs: Record<Lane, number>;
  private readonly maxQueued: number;
  private readonly metrics?: BulkheadMetrics;

  constructor(@Inject(GATEWAY_CONFIG) config: BulkheadsConfigView, @Optional() registry?: MetricsRegistry) {
    if (registry) this.metrics = new BulkheadMetrics(registry, () => this.counts);
    const { bulkheads } = config;
    const teams = Math.max(1, config.teams.length);
    this.defaults = {
      ordinary: bulkheads.perTeam ?? Math.max(1, Math.floor(config.http.connectionsPerOrigin / teams)),
      blocking: bulkheads.blocking.perTeam ?? Math.max(1, Math.floor(bulkheads.blocking.connectionsPerOrigin / teams)),
      clientOrdinary: bulkheads.perClient,
      clientBlocking: bulkheads.blocking.perClient,
      maxBlockSeconds: bulkheads.blocking.maxBlockSeconds,
    };
    this.queueMs = { ordinary: bulkheads.queueMs, blocking: bulkheads.blocking.queueMs };
    this.maxQueued = bulkheads.maxQueued;
    for (const team of config.teams) {
      this.teamCaps.set(team.id, {
        ordinary: team.bulkhead?.perTeam ?? this.defaults.ordinary,
        blocking: team.bulkhead?.blockingPerTeam ?? this.defaults.blocking,
      });
    }
    for (const client of config.clients) {
      const own = client.bulkhead ?? {};
      this.clientCaps.set(client.id, {
        ordinary: own.perClient,
        blocking: own.blockingPerClient,
        maxBlockSeconds: own.maxBlockSeconds,
      });
    }
  }

  /** The longest `maxBlockTime` this client may ask for, in seconds. */
  maxBlockSeconds(client: string | undefined): number {
    return (
      (client === undefined ? undefined : this.clientCaps.get(client)?.maxBlockSeconds) ?? this.defaults.maxBlockSeconds
    );
  }

  /** The bounds that apply to `call`: the team's, then the client's (default: the team's). */
  capsOf(call: Pick<InFlightCall, 'lane' | 'team' | 'client'>): { team?: number; client?: number } {
    const team =
      call.team === undefined ? undefined : (this.teamCaps.get(call.team)?.[call.lane] ?? this.defaults[call.lane]);
    const own = call.client === undefined ? undefined : this.clientCaps.get(call.client)?.[call.lane];
    const fallback = call.lane === 'blocking' ? this.defaults.clientBlocking : this.defaults.clientOrdinary;
    return { team, client: call.client === undefined ? undefined : (own ?? fallback ?? team) };
  }

  /**
   * A place for `call`: at once, or after waiting in line for at most the lane's `queueMs` (or
   * `waitMs`, the client's Prefer: wait, when longer); else InFlightLimitedError naming the bound it
   * waited on. Call the returned function once the call is answered.
   */
  enter(call: InFlightCall, waitMs = 0): Promise<() => void> {
    return this.place(call, this.gatesOf(call), Math.max(this.queueMs[call.lane], waitMs), this.maxQueued);
  }

  /** Runs `work` once `team` holds a place in `pool` (see OwnPool), and gives the place back after. */
  async run<T>(pool: OwnPool, team: string, work: () => Promise<T>): Promise<T> {
    const call: InFlightCall = { origin: pool.name, surface: pool.name, lane: 'ordinary', team };
    const gate: Gate = {
      key: `ordinary|${pool.name}|t|${team}`,
      cap: pool.perTeam,
      name: pool.cap,
      who: `team ${team}`,
    };
    const release = await this.place(call, [gate], pool.waitMs, Number.POSITIVE_INFINITY);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Calls in flight now, by `lane|origin|c or t|id` (for metrics and tests). */
  snapshot(): ReadonlyMap<string, number> {
    return new Map(this.counts);
  }

  /** A place past every gate: at once, or after waiting in the pool's line at most `wait` ms (with at most `maxQueued` waiting), else the refusal. */
  private place(call: InFlightCall, keys: Gate[], wait: number, maxQueued: number): Promise<() => void> {
    const pool = `${call.lane}|${call.origin}`;
    const queue = this.queues.get(pool) ?? [];
    // First come, first served on a bound someone already waits for; never behind a wait on a bound this call does not share.
    const ahead = queue.some((waiter) =>
      waiter.keys.some((gate) => this.full(gate) && keys.some((own) => own.key === gate.key)),
    );
    if (call.exempt === true || (!ahead && this.fits(keys, call))) return Promise.resolve(this.take(keys, pool));
    if (wait <= 0 || queue.length >= maxQueued) return Promise.reject(this.refusal(keys, call));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { call, keys, admit: resolve };
      waiter.timer = setTimeout(() => {
        const line = this.queues.get(pool) ?? [];
        const at = line.indexOf(waiter);
        if (at >= 0) line.splice(at, 1);
        if (line.length === 0) this.queues.delete(pool);
        reject(this.refusal(keys, call));
      }, wait);
      queue.push(waiter);
      this.queues.set(pool, queue);
    });
  }

  private gatesOf(call: InFlightCall): Gate[] {
    const caps = this.capsOf(call);
    const prefix = `${call.lane}|${call.origin}|`;
    const lane = call.lane === 'blocking' ? 'blocking.' : '';
    const gates: Gate[] = [];
    if (call.client !== undefined)
      gates.push({
        key: `${prefix}c|${call.client}`,
        cap: caps.client,
        name: `bulkheads.${lane}perClient` satisfies InFlightCap,
        who: `client ${call.client}`,
      });
    if (call.team !== undefined)
      gates.push({
        key: `${prefix}t|${call.team}`,
        cap: caps.team,
        name: `bulkheads.${lane}perTeam` satisfies InFlightCap,
        who: `team ${call.team}`,
      });
    return gates;
  }

  private full(gate: Gate): boolean {
    return gate.cap !== undefined && (this.counts.get(gate.key) ?? 0) >= gate.cap;
  }

  private fits(gates: readonly Gate[], call: InFlightCall): boolean {
    return call.exempt === true || !gates.some((gate) => this.full(gate));
  }

  private refusal(gates: readonly Gate[], call: InFlightCall): InFlightLimitedError {
    const full = gates.find((gate) => this.full(gate)) ?? gates[gates.length - 1]!;
    this.metrics?.refused(full.name, call.team);
    return new InFlightLimitedError(full.name, full.cap ?? 0, full.who, call);
  }

  private take(gates: readonly Gate[], pool: string): () => void {
    for (const gate of gates) this.counts.set(gate.key, (this.counts.get(gate.key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const gate of gates) {
        const left = (this.counts.get(gate.key) ?? 1) - 1;
        if (left > 0) this.counts.set(gate.key, left);
        else this.counts.delete(gate.key);
      }
      this.admitWaiting(pool);
    };
  }

  /** Lets in, in arrival order, every waiter of the pool that fits now (one team's full line never holds up another's). */
  private admitWaiting(pool: string): void {
    const queue = this.queues.get(pool);
    if (!queue) return;
    for (let i = 0; i < queue.length;) {
      const waiter = queue[i]!;
      if (!this.fits(waiter.keys, waiter.call)) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      clearTimeout(waiter.timer);
      waiter.admit(this.take(waiter.keys, pool));
    }
    if (queue.length === 0) this.queues.delete(pool);
  }
}
