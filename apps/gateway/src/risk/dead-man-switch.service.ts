import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, REDIS, type RedisClient } from '@lib/core';

import { ClientCancelAll } from './client-cancel-all.service.js';
import { DueClients } from './due-clients.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

/** How often every instance looks for lapsed switches: a lapse fires at most this late (plus the cancels). */
const POLL_MS = 250;
/** Longest timer a client may arm (seconds). */
export const MAX_DEAD_MAN_SECONDS = 3_600;

/**
 * The dead-man's switch (issue 26; ccxt's cancel-all-after): a client arms "cancel all my orders after N
 * seconds" and re-arms it while it lives. The deadline is kept in Redis (DueClients: an instant of
 * Redis's clock, so no instance's wrong clock fires it early or late) when the gateway has one, and every
 * instance polls for lapsed ones, taking each under a lease: the switch fires even when the instance where
 * it was armed has died, and again elsewhere when the instance that took it died before its cancels ran.
 * Without Redis it lives in this process.
 */
@Injectable()
export class DeadManSwitch implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(DeadManSwitch.name);
  private readonly shared: DueClients | null;
  private readonly local = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: RedisClient | null,
    private readonly brake: ClientCancelAll,
    private readonly clock: Clock,
  ) {
    this.shared = redis && new DueClients(redis, `${config.redis?.keyPrefix ?? ''}{risk}:deadman`);
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
    if (this.shared) {
      // Another instance fires it (this one may die): an instant of Redis's clock, which every instance reads alike.
      const deadline = await this.shared.schedule(clientId, seconds * 1_000).catch(unknownOutcome);
      return { firesAt: new Date(deadline).toISOString() };
    }
    const deadline = this.clock.now() + seconds * 1_000;
    this.local.set(clientId, deadline);
    return { firesAt: new Date(this.clock.wallNow() + seconds * 1_000).toISOString() };
  }

  async disarm(clientId: string): Promise<void> {
    if (this.shared) await this.shared.unschedule(clientId).catch(unknownOutcome);
    else this.local.delete(clientId);
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all((await this.lapsed()).map((clientId) => this.fire(clientId)));
    } catch (error) {
      this.logger.warn(`dead-man's switches not polled (${String(error)}); the next poll retries`);
    } finally {
      this.polling = false;
    }
  }

  /** One client's cancels; a failure leaves its lease to run out, and another poll (here or elsewhere) runs them again. */
  private async fire(clientId: string): Promise<void> {
    try {
      const counts = await this.brake.run(clientId, 'dead-man-switch', "the client's dead-man's switch lapsed");
      this.logger.warn({ deadManSwitch: counts }, `dead-man's switch of ${clientId} fired`);
      await this.shared?.done(clientId);
    } catch (error) {
      this.logger.error(`dead-man's switch of ${clientId}: its cancels failed (${String(error)}); they run again`);
    }
  }

  private async lapsed(): Promise<string[]> {
    if (this.shared) return (await this.shared.take()).taken;
    const now = this.clock.now();
    const due = [...this.local].filter(([, deadline]) => deadline <= now).map(([client]) => client);
    for (const client of due) this.local.delete(client);
    return due;
  }
}

/** A store that did not answer: the switch may or may not have changed (a write can land after its timeout). */
function unknownOutcome(error: unknown): never {
  throw new DomainError(
    ErrorCode.SERVICE_UNAVAILABLE,
    "The dead-man's switch store did not answer in time; the switch may or may not have changed: call again.",
    { cause: error, headers: { 'Retry-After': '1' } },
  );
}
