import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, LuaScript, REDIS, type RedisClient } from '@lib/core';

import { ClientCancelAll } from './client-cancel-all.service.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** How often every instance looks for lapsed switches: a lapse fires at most this late (plus the cancels). */
const POLL_MS = 250;
/** Longest timer a client may arm (seconds). */
export const MAX_DEAD_MAN_SECONDS = 3_600;

/** KEYS[1]: the deadlines (sorted set, ms). ARGV[1]: now (ms), ARGV[2]: how many. Claims lapsed switches: each is taken by one instance only. */
const CLAIM_DUE = new LuaScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, client in ipairs(due) do redis.call('ZREM', KEYS[1], client) end
return due
`);

/**
 * The dead-man's switch (issue 26; ccxt's cancel-all-after): a client arms "cancel all my orders after N
 * seconds" and re-arms it while it lives. The deadline is kept in Redis (a sorted set) when the gateway
 * has one, and every instance polls for lapsed ones, claiming each atomically: the switch fires even
 * when the instance where it was armed has died. Without Redis it lives in this process.
 */
@Injectable()
export class DeadManSwitch implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(DeadManSwitch.name);
  private readonly key: string;
  private readonly local = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    private readonly brake: ClientCancelAll,
    private readonly clock: Clock,
  ) {
    this.key = `${config.redis?.keyPrefix ?? ''}{risk}:deadman`;
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Arms or re-arms: the client's orders are cancelled unless it calls again within `seconds`. */
  async arm(clientId: string, seconds: number): Promise<{ firesAt: string }> {
    // Another instance fires it (this one may die): a wall-clock instant, which every process reads alike (a steady reading is this process's own).
    const deadline = this.clock.wallNow() + seconds * 1_000;
    if (this.redis) await this.redis.zadd(this.key, deadline, clientId).catch(unreachable);
    else this.local.set(clientId, deadline);
    return { firesAt: new Date(deadline).toISOString() };
  }

  async disarm(clientId: string): Promise<void> {
    if (this.redis) await this.redis.zrem(this.key, clientId).catch(unreachable);
    else this.local.delete(clientId);
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const clientId of await this.claimDue()) {
        const counts = await this.brake.run(clientId, 'dead-man-switch', "the client's dead-man's switch lapsed");
        this.logger.warn({ deadManSwitch: counts }, `dead-man's switch of ${clientId} fired`);
      }
    } catch (error) {
      this.logger.warn(`dead-man's switches not polled (${String(error)}); the next poll retries`);
    } finally {
      this.polling = false;
    }
  }

  private async claimDue(): Promise<string[]> {
    const now = this.clock.wallNow();
    if (this.redis) return (await CLAIM_DUE.run(this.redis, [this.key], [now, 20])) as string[];
    const due = [...this.local].filter(([, deadline]) => deadline <= now).map(([client]) => client);
    for (const client of due) this.local.delete(client);
    return due;
  }
}

function unreachable(error: unknown): never {
  throw new DomainError(
    ErrorCode.SERVICE_UNAVAILABLE,
    "The dead-man's switch store is unreachable; the switch was not changed.",
    { cause: error, headers: { 'Retry-After': '1' } },
  );
}
