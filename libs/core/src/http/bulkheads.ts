import { Inject, Injectable } from '@nestjs/common';

import { GATEWAY_CONFIG } from '../config/config.module.js';
import type { GatewayConfig } from '../config/config.schema.js';
import { DomainError } from '../errors/domain.error.js';
import { ErrorCode } from '../errors/error-code.js';

/** `ordinary` calls share an origin's main pool; `blocking` ones (synchronous retail orders) have a pool of their own. */
export type Lane = 'ordinary' | 'blocking';

/** Who one call is made for, and where it goes. */
export interface InFlightCall {
  /** The origin's pool (its URL's `scheme://authority`). */
  origin: string;
  /** `exchange`, `retail` or `catalog`: named in the refusal. */
  surface: string;
  lane: Lane;
  team?: string;
  client?: string;
  /** Counted, never refused: a cancel is never blocked by a gateway rule. */
  exempt?: boolean;
}

/** Config names of the bounds, as a refusal names them (`cap`). */
export type InFlightCap = 'bulkheads.perClient' | 'bulkheads.perTeam' | 'bulkheads.blocking.perClient' | 'bulkheads.blocking.perTeam';

/** Past a bound on calls in flight: 429, before any budget is spent, naming the bound and its value. */
export class InFlightLimitedError extends DomainError {
  constructor(cap: InFlightCap, limit: number, call: InFlightCall) {
    const who = cap.endsWith('perTeam') ? `team ${call.team ?? ''}` : `client ${call.client ?? ''}`;
    const what = call.lane === 'blocking' ? 'blocking calls' : 'calls';
    super(ErrorCode.IN_FLIGHT_LIMITED, `${who} already has ${limit} ${call.surface} ${what} in flight (${cap} is ${limit}); retry when one has been answered.`, {
      headers: { 'Retry-After': '1' },
      extensions: { cap, limit, surface: call.surface, lane: call.lane },
    });
  }
}

/**
 * The bulkheads of issue 25: how many upstream calls each team and each client has in flight to each
 * origin's pool on this instance, and the bounds that keep one team from taking the connections
 * another needs (BulkheadsSchema). `enter` runs before any budget is spent and returns the release.
 */
@Injectable()
export class Bulkheads {
  private readonly counts = new Map<string, number>();
  private readonly teamCaps = new Map<string, { ordinary: number; blocking: number }>();
  private readonly clientCaps = new Map<string, { ordinary?: number; blocking?: number; maxBlockSeconds?: number }>();
  private readonly defaults: { ordinary: number; blocking: number; clientOrdinary?: number; clientBlocking?: number; maxBlockSeconds: number };

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    const { bulkheads } = config;
    const teams = Math.max(1, config.teams.length);
    this.defaults = {
      ordinary: bulkheads.perTeam ?? Math.max(1, Math.floor(config.http.connectionsPerOrigin / teams)),
      blocking: bulkheads.blocking.perTeam ?? Math.max(1, Math.floor(bulkheads.blocking.connectionsPerOrigin / teams)),
      clientOrdinary: bulkheads.perClient,
      clientBlocking: bulkheads.blocking.perClient,
      maxBlockSeconds: bulkheads.blocking.maxBlockSeconds,
    };
    for (const team of config.teams) {
      this.teamCaps.set(team.id, { ordinary: team.bulkhead?.perTeam ?? this.defaults.ordinary, blocking: team.bulkhead?.blockingPerTeam ?? this.defaults.blocking });
    }
    for (const client of config.clients) {
      const own = client.bulkhead ?? {};
      this.clientCaps.set(client.id, { ordinary: own.perClient, blocking: own.blockingPerClient, maxBlockSeconds: own.maxBlockSeconds });
    }
  }

  /** The longest `maxBlockTime` this client may ask for, in seconds. */
  maxBlockSeconds(client: string | undefined): number {
    return (client === undefined ? undefined : this.clientCaps.get(client)?.maxBlockSeconds) ?? this.defaults.maxBlockSeconds;
  }

  /** The bounds that apply to `call`: the team's, then the client's (default: the team's). */
  capsOf(call: Pick<InFlightCall, 'lane' | 'team' | 'client'>): { team?: number; client?: number } {
    const team = call.team === undefined ? undefined : (this.teamCaps.get(call.team)?.[call.lane] ?? this.defaults[call.lane]);
    const own = call.client === undefined ? undefined : this.clientCaps.get(call.client)?.[call.lane];
    const fallback = call.lane === 'blocking' ? this.defaults.clientBlocking : this.defaults.clientOrdinary;
    return { team, client: call.client === undefined ? undefined : (own ?? fallback ?? team) };
  }

  /** Takes a place for `call`, or throws InFlightLimitedError naming the bound it would pass; call the returned function once answered. */
  enter(call: InFlightCall): () => void {
    const keys: string[] = [];
    const caps = this.capsOf(call);
    const prefix = `${call.lane}|${call.origin}|`;
    const lane = call.lane === 'blocking' ? 'blocking.' : '';
    if (call.client !== undefined) keys.push(this.check(`${prefix}c|${call.client}`, caps.client, `bulkheads.${lane}perClient` as InFlightCap, call));
    if (call.team !== undefined) keys.push(this.check(`${prefix}t|${call.team}`, caps.team, `bulkheads.${lane}perTeam` as InFlightCap, call));
    for (const key of keys) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) {
        const left = (this.counts.get(key) ?? 1) - 1;
        if (left > 0) this.counts.set(key, left);
        else this.counts.delete(key);
      }
    };
  }

  /** Calls in flight now, by `lane|origin|c or t|id` (for metrics and tests). */
  snapshot(): ReadonlyMap<string, number> {
    return new Map(this.counts);
  }

  private check(key: string, cap: number | undefined, name: InFlightCap, call: InFlightCall): string {
    if (cap !== undefined && !call.exempt && (this.counts.get(key) ?? 0) >= cap) throw new InFlightLimitedError(name, cap, call);
    return key;
  }
}
