import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  Clock,
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
import { DueClients } from './due-clients.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** Longest grace a client may ask for (seconds): past this, a client wants a dead-man's switch, not this. */
export const MAX_DISCONNECT_GRACE_SECONDS = 300;

/** How often an instance renews, in Redis, its claims on the clients it holds opted-in connections of, and how long a claim stands. */
const LIVE_REFRESH_MS = 2_000;
const LIVE_TTL_MS = 6_000;
/** A claim renewed within this long is its instance's live word; an older one may be a dead instance's, and is waited out. */
const LIVE_RENEWED_MS = LIVE_REFRESH_MS + 1_000;
/** How often every instance looks for lapsed graces (a lapse fires at most this late, plus the cancels). */
const POLL_MS = 250;

/**
 * KEYS[1] the live claims, KEYS[2] the due set, KEYS[3] its periods; ARGV[1] the TTL, then pairs of claim
 * and client: claimed, and no longer due. Returns the clients whose grace this called off.
 */
const CLAIM = new LuaScript(
  `${luaNowMs('now')}
local called = {}
for i = 2, #ARGV, 2 do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i])
  if redis.call('ZREM', KEYS[2], ARGV[i + 1]) == 1 then
    redis.call('HDEL', KEYS[3], ARGV[i + 1])
    called[#called + 1] = ARGV[i + 1]
  end
end
return called`,
);

/**
 * KEYS[1] the live claims, KEYS[2] the due set, KEYS[3] its periods; ARGV[1] this instance's claim, ARGV[2]
 * the client, ARGV[3] its grace: withdrawn, and due at the instant returned (Redis's clock).
 */
const DISCONNECT = new LuaScript(
  `${luaNowMs('now')}
local at = now + tonumber(ARGV[3])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], at, ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
return at`,
);

/**
 * Cancel-on-disconnect for `/ws` clients (the exchange offers it only to FIX sessions, upstream-facts
 * "Order safety"): when a client's last opted-in connection on an instance closes and the client is not
 * connected again (to any instance) within its grace, its open orders are cancelled (as the kill switch
 * does for `client:<id>`, with no trading state latched).
 *
 * With Redis, nothing of it is one instance's: the closing instance withdraws its claim on the client and
 * makes the client due at the grace's end (one script, Redis's clock; DueClients); a connection of the
 * client on any instance takes it off the due set again, and so does every claim renewal (every 2 s, a
 * claim stands 6 s). Whichever instance polls first when the grace ends fires it, unless a live claim
 * says the client is still connected somewhere; a claim that missed its renewal (its instance may have
 * died) is waited out first. So a cancel survives the death or shutdown of the instance whose connection
 * closed, and an instance that shuts down hands its clients' graces over the same way (its sockets close:
 * each client reconnects elsewhere within its grace, or is cancelled). Redis unreachable when a connection
 * closes: the grace runs in this process, handed to Redis when it answers again, or fired here at its end
 * unless the client connected here again (the safe side). A grace already in Redis when Redis stops
 * answering fires from the instances' mirrors of the due set (DueClients, DueMirror) at max(its end, the
 * outage's start + the grace), skipped where the client is connected (a reconnect to another instance
 * meanwhile is not seen there: cancels only). Without Redis: this process alone.
 */
@Injectable()
export class CancelOnDisconnect implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(CancelOnDisconnect.name);
  private readonly shared: DueClients | null;
  private readonly liveKey: string;
  private readonly dueKey: string;
  /** Opted-in connections this instance holds, by client, with the grace of the latest. */
  private readonly connected = new Map<string, { count: number; graceMs: number }>();
  /** Graces running in this process (no Redis, or Redis did not take them): client → end, steady clock. */
  private readonly local = new Map<string, number>();
  /** Shutting down: the connections close because this instance stops; their graces were handed over. */
  private stopping = false;
  private refresher?: NodeJS.Timeout;
  private poller?: NodeJS.Timeout;
  private polling = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(INSTANCE_ID) private readonly instance: string,
    private readonly brake: ClientCancelAll,
    private readonly clock: Clock,
  ) {
    const prefix = `${config.redis?.keyPrefix ?? ''}{risk}:`;
    this.dueKey = `${prefix}cod-due`;
    this.liveKey = `${prefix}cod-live`;
    this.shared = redis && new DueClients(redis, this.dueKey, () => clock.now());
  }

  onModuleInit(): void {
    this.refresher = setInterval(
      () => void this.claim([...this.connected.keys()], 'still connected to this instance'),
      LIVE_REFRESH_MS,
    ).unref();
    this.poller = setInterval(() => void this.poll(), POLL_MS).unref();
  }

  /** Before the sockets close: each held client's grace starts now, in Redis, for any instance to fire. */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    clearInterval(this.refresher);
    const now = this.clock.now();
    await Promise.all([...this.connected].map(([clientId, { graceMs }]) => this.leave(clientId, now + graceMs)));
    this.connected.clear();
  }

  onApplicationShutdown(): void {
    clearInterval(this.poller);
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

  /** An opted-in connection of `clientId` opened: a running grace of the client (here or anywhere) is called off. */
  async connectedNow(clientId: string, graceMs: number): Promise<void> {
    const held = this.connected.get(clientId);
    this.connected.set(clientId, { count: (held?.count ?? 0) + 1, graceMs });
    this.shared?.forget(clientId);
    if (this.local.delete(clientId)) this.resumed(clientId);
    await this.claim([clientId], 'resumed within the grace');
  }

  /** An opted-in connection closed: the last one on this instance starts the client's grace. */
  async disconnected(clientId: string, graceMs: number): Promise<void> {
    if (this.stopping) return;
    const held = this.connected.get(clientId);
    if (held && held.count > 1) return void this.connected.set(clientId, { ...held, count: held.count - 1 });
    this.connected.delete(clientId);
    await this.leave(clientId, this.clock.now() + graceMs);
  }

  /** This instance's claim withdrawn and the client due at the grace's end, in one script; or the grace kept here. */
  private async leave(clientId: string, endsAt: number): Promise<void> {
    if (!this.redis || !this.shared) return void this.local.set(clientId, endsAt);
    const left = Math.max(0, endsAt - this.clock.now());
    try {
      const keys = [this.liveKey, this.dueKey, this.shared.periods];
      const at = await DISCONNECT.runInOrder(this.redis, keys, [this.claimOf(clientId), clientId, left]);
      this.shared.scheduledElsewhere(clientId, left, Number(at));
      this.local.delete(clientId);
      this.logger.log(`cancel-on-disconnect of ${clientId}: its grace runs, ${left} ms (no opted-in connection here)`);
    } catch (error) {
      if (!this.local.has(clientId))
        this.logger.warn(
          `cancel-on-disconnect of ${clientId}: its grace runs on this instance only (${String(error)})`,
        );
      this.local.set(clientId, endsAt);
    }
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await this.pollLocal();
      if (!this.shared) return;
      const { fire, stood, outage, resumed } = await this.shared.poll({
        key: this.liveKey,
        renewedEndsAfterMs: LIVE_TTL_MS - LIVE_RENEWED_MS,
      });
      if (outage?.began)
        this.logger.warn(
          `cancel-on-disconnect: Redis did not answer (${String(outage.error)}); lapsed graces fire from this instance's mirror until it does`,
        );
      if (resumed) this.logger.log('cancel-on-disconnect: Redis answers again; graces fire from it');
      for (const clientId of stood) this.resumed(clientId, 'still connected to another instance');
      // From the mirror, not a client connected here (its claim could not reach Redis); from Redis, as before.
      const here = outage ? fire.filter((clientId) => !this.connected.has(clientId)) : fire;
      await Promise.all(here.map((clientId) => this.fire(clientId, outage !== undefined)));
    } catch (error) {
      this.logger.warn(`cancel-on-disconnect: lapsed graces not polled (${String(error)}); the next poll retries`);
    } finally {
      this.polling = false;
    }
  }

  /** Graces this process kept: handed to Redis once it answers; at their end (Redis still away), fired here. */
  private async pollLocal(): Promise<void> {
    const now = this.clock.now();
    for (const [clientId, endsAt] of [...this.local]) {
      if (this.redis) await this.leave(clientId, endsAt);
      if (!this.local.has(clientId) || endsAt > now) continue;
      this.local.delete(clientId);
      await this.fire(clientId);
    }
  }

  /** `alone`: fired from the mirror while Redis is out (no lease to end; a failure is tried again from the mirror). */
  private async fire(clientId: string, alone = false): Promise<void> {
    try {
      const counts = await this.brake.run(
        clientId,
        'cancel-on-disconnect',
        "the client's /ws connection closed and was not resumed within its grace",
      );
      const how = alone ? " (Redis out: from this instance's mirror)" : '';
      this.logger.warn({ cancelOnDisconnect: counts }, `cancel-on-disconnect of ${clientId}: fired${how}`);
      if (!alone) await this.shared?.done(clientId);
    } catch (error) {
      this.logger.error(`cancel-on-disconnect of ${clientId}: its cancels failed (${String(error)}); they run again`);
      if (alone) this.shared?.retryAlone(clientId);
    }
  }

  private resumed(clientId: string, how = 'resumed within the grace'): void {
    this.logger.log(`cancel-on-disconnect of ${clientId}: ${how}, nothing cancelled`);
  }

  /** This instance holds opted-in connections of these clients: claimed, and none of them due (best effort: the next renewal retries). */
  private async claim(clientIds: readonly string[], how: string): Promise<void> {
    if (!this.redis || !this.shared || clientIds.length === 0) return;
    const args = clientIds.flatMap((id) => [this.claimOf(id), id]);
    const keys = [this.liveKey, this.dueKey, this.shared.periods];
    const called = await CLAIM.runInOrder(this.redis, keys, [LIVE_TTL_MS, ...args]).catch(() => []);
    for (const clientId of called as string[]) this.resumed(clientId, how);
  }

  private claimOf(clientId: string): string {
    return `${clientId}\n${this.instance}`;
  }
}
