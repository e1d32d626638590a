import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  GATEWAY_CONFIG,
  INSTANCE_ID,
  LuaScript,
  luaNowMs,
  REDIS,
  type RedisClient,
} from '@lib/core';

import { ClientCancelAll } from './client-cancel-all.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** Longest grace a client may ask for (seconds): past this, a client wants a dead-man's switch, not this. */
export const MAX_DISCONNECT_GRACE_SECONDS = 300;

/** Deletes the pending mark only if it is still the one this instance set. */
const TAKE_IF_MINE = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

/** How often an instance says in Redis which clients it holds opted-in connections of, and how long that stands. */
const LIVE_REFRESH_MS = 2_000;
const LIVE_TTL_MS = 6_000;

/** KEYS: one live set per client; ARGV[1] this instance, ARGV[2] the TTL: this instance holds each of them. */
const REFRESH_LIVE = new LuaScript(
  `${luaNowMs('now')}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  redis.call('ZADD', key, now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', key, tonumber(ARGV[2]) * 2)
end
return 0`,
);

/**
 * KEYS[1] a client's live set, ARGV[1] this instance (which holds none of its connections: a refresh that
 * raced the last close is dropped): how many ms the longest-standing other claim still runs (0: none).
 */
const LIVE_ELSEWHERE = new LuaScript(
  `${luaNowMs('now')}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREM', KEYS[1], ARGV[1])
local last = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #last == 0 then return 0 end
return tonumber(last[2]) - now`,
);

/**
 * Cancel-on-disconnect for `/ws` clients (the exchange offers it only to FIX sessions, upstream-facts
 * "Order safety"): when a client's last opted-in connection on this instance closes, a mark is left
 * (in Redis when configured, so a reconnect to any instance clears it) and, unless the client has
 * connected again within the grace, the client's open orders are cancelled (as the kill switch does
 * for `client:<id>`, with no trading state latched). The instance where the connection died fires
 * it: if that instance dies too, nothing fires.
 *
 * "Connected" is the client's, not an instance's: each instance claims, in a live set per client in
 * Redis (refreshed every 2 s, standing 6 s, Redis's clock), the clients it holds opted-in connections
 * of. A client that still holds a connection on another instance is not cancelled when it loses one
 * here; a claim that is only still standing (its instance died without withdrawing it) is waited out
 * once, then the cancel fires if no instance renewed it.
 */
@Injectable()
export class CancelOnDisconnect implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(CancelOnDisconnect.name);
  private readonly prefix: string;
  private readonly livePrefix: string;
  private readonly marks = new Map<string, string>();
  private readonly connected = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Shutting down: the sockets this instance closes itself are not disconnects (their clients reconnect elsewhere). */
  private stopping = false;
  private readonly refresher: NodeJS.Timeout;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(INSTANCE_ID) private readonly instance: string,
    private readonly brake: ClientCancelAll,
  ) {
    this.prefix = `${config.redis?.keyPrefix ?? ''}{risk}:cod:`;
    this.livePrefix = `${config.redis?.keyPrefix ?? ''}{risk}:cod-live:`;
    this.refresher = setInterval(() => void this.claim([...this.connected.keys()]), LIVE_REFRESH_MS).unref();
  }

  onModuleDestroy(): void {
    this.stopping = true;
    clearInterval(this.refresher);
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  /** The grace in ms a `/ws` URL's `cancelOnDisconnect=<seconds>` asks for, or a 400 naming the bound. */
  static graceOf(value: string | null): number | undefined {
    if (value === null) return undefined;
    // Decimal digits only: Number() would also take `0x10`, `1e2` and ` 5 `.
    const seconds = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_DISCONNECT_GRACE_SECONDS) {
      throw new DomainError(
        ErrorCode.VALIDATION_FAILED,
        `cancelOnDisconnect takes whole seconds from 1 to ${MAX_DISCONNECT_GRACE_SECONDS}.`,
        { errors: [{ path: 'query.cancelOnDisconnect', message: 'expected 1..300' }] },
      );
    }
    return seconds * 1_000;
  }

  /** An opted-in connection of `clientId` opened: a pending cancel of an earlier one is called off (its resume). */
  async connectedNow(clientId: string): Promise<void> {
    this.connected.set(clientId, (this.connected.get(clientId) ?? 0) + 1);
    this.marks.delete(clientId);
    await Promise.all([this.redis?.del(this.prefix + clientId).catch(() => undefined), this.claim([clientId])]);
  }

  /** An opted-in connection closed: the last one on this instance leaves a mark and a timer of `graceMs`. */
  async disconnected(clientId: string, graceMs: number): Promise<void> {
    if (this.stopping) return;
    const left = (this.connected.get(clientId) ?? 1) - 1;
    if (left > 0) return void this.connected.set(clientId, left);
    this.connected.delete(clientId);
    const mark = randomUUID();
    this.marks.set(clientId, mark);
    await this.redis
      ?.set(this.prefix + clientId, mark, 'PX', graceMs * 2)
      .catch((error: unknown) =>
        this.logger.warn(`cancel-on-disconnect mark of ${clientId} not shared (${String(error)})`),
      );
    // After the mark: a resume on another instance deletes the mark, so it must not come before it.
    await this.redis?.zrem(this.liveKey(clientId), this.instance).catch(() => undefined);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.fire(clientId, mark);
    }, graceMs);
    this.timers.add(timer);
  }

  private async fire(clientId: string, mark: string, waited = false): Promise<void> {
    if (!waited && !(await this.stillMine(clientId, mark))) return this.resumed(clientId);
    if (waited && this.connected.has(clientId)) return this.resumed(clientId);
    const elsewhereMs = await this.liveElsewhereMs(clientId);
    if (elsewhereMs > 0 && waited) return this.resumed(clientId, 'still connected to another instance');
    if (elsewhereMs > 0) {
      // Another instance's claim stands: live, or left by an instance that died. Waited out once: renewed means live.
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.fire(clientId, mark, true);
      }, elsewhereMs + 100);
      this.timers.add(timer);
      return;
    }
    const counts = await this.brake.run(
      clientId,
      'cancel-on-disconnect',
      "the client's /ws connection closed and was not resumed within its grace",
    );
    this.logger.warn({ cancelOnDisconnect: counts }, `cancel-on-disconnect of ${clientId}: fired`);
  }

  private resumed(clientId: string, how = 'resumed within the grace'): void {
    this.logger.log(`cancel-on-disconnect of ${clientId}: ${how}, nothing cancelled`);
  }

  /** This instance holds opted-in connections of these clients (best effort: unreachable Redis shares nothing). */
  private async claim(clientIds: readonly string[]): Promise<void> {
    if (!this.redis || clientIds.length === 0) return;
    // One call: every key of the brake shares the `{risk}` slot.
    const keys = clientIds.map((id) => this.liveKey(id));
    await REFRESH_LIVE.run(this.redis, keys, [this.instance, LIVE_TTL_MS]).catch(() => undefined);
  }

  /** How long another instance's claim on `clientId` still stands (0: none, or Redis unreachable: the safe side is to cancel). */
  private async liveElsewhereMs(clientId: string): Promise<number> {
    if (!this.redis) return 0;
    return Number(await LIVE_ELSEWHERE.run(this.redis, [this.liveKey(clientId)], [this.instance]).catch(() => 0));
  }

  private liveKey(clientId: string): string {
    return this.livePrefix + clientId;
  }

  private async stillMine(clientId: string, mark: string): Promise<boolean> {
    if (this.marks.get(clientId) !== mark) return false;
    this.marks.delete(clientId);
    if (!this.redis) return true;
    // Redis unreachable: the local mark decides (a resume on another instance is then not seen: cancel, the safe side).
    return Number(await TAKE_IF_MINE.run(this.redis, [this.prefix + clientId], [mark]).catch(() => 1)) === 1;
  }
}
