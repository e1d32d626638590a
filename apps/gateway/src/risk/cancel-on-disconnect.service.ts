import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { DomainError, ErrorCode, GATEWAY_CONFIG, LuaScript, REDIS, type RedisClient } from '@lib/core';

import { ClientCancelAll } from './client-cancel-all.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** Longest grace a client may ask for (seconds): past this, a client wants a dead-man's switch, not this. */
export const MAX_DISCONNECT_GRACE_SECONDS = 300;

/** Deletes the pending mark only if it is still the one this instance set. */
const TAKE_IF_MINE = new LuaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

/**
 * Cancel-on-disconnect for `/ws` clients (the exchange offers it only to FIX sessions, upstream-facts
 * "Order safety"): when a client's last opted-in connection on this instance closes, a mark is left
 * (in Redis when configured, so a reconnect to any instance clears it) and, unless the client has
 * connected again within the grace, the client's open orders are cancelled (as the kill switch does
 * for `client:<id>`, with no trading state latched). The instance where the connection died fires
 * it: if that instance dies too, nothing fires.
 */
@Injectable()
export class CancelOnDisconnect implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(CancelOnDisconnect.name);
  private readonly prefix: string;
  private readonly marks = new Map<string, string>();
  private readonly connected = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Shutting down: the sockets this instance closes itself are not disconnects (their clients reconnect elsewhere). */
  private stopping = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    private readonly brake: ClientCancelAll,
  ) {
    this.prefix = `${config.redis?.keyPrefix ?? ''}{risk}:cod:`;
  }

  onModuleDestroy(): void {
    this.stopping = true;
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
    await this.redis?.del(this.prefix + clientId).catch(() => undefined);
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
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.fire(clientId, mark);
    }, graceMs);
    this.timers.add(timer);
  }

  private async fire(clientId: string, mark: string): Promise<void> {
    if (!(await this.stillMine(clientId, mark))) {
      this.logger.log(`cancel-on-disconnect of ${clientId}: resumed within the grace, nothing cancelled`);
      return;
    }
    const counts = await this.brake.run(
      clientId,
      'cancel-on-disconnect',
      "the client's /ws connection closed and was not resumed within its grace",
    );
    this.logger.warn({ cancelOnDisconnect: counts }, `cancel-on-disconnect of ${clientId}: fired`);
  }

  private async stillMine(clientId: string, mark: string): Promise<boolean> {
    if (this.marks.get(clientId) !== mark) return false;
    this.marks.delete(clientId);
    if (!this.redis) return true;
    // Redis unreachable: the local mark decides (a resume on another instance is then not seen: cancel, the safe side).
    return Number(await TAKE_IF_MINE.run(this.redis, [this.prefix + clientId], [mark]).catch(() => 1)) === 1;
  }
}
