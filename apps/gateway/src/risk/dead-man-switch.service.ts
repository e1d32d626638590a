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
 *
 * While Redis does not answer, a lapsed switch still fires: every instance mirrors the deadlines (what it
 * armed, and the whole set read every second) and fires from its mirror at max(the deadline, the outage's
 * start + the switch's period), never before Redis would have, at most one period late; several instances
 * may fire one switch (the second cancel-all finds nothing). Arming or disarming meanwhile still answers
 * 503 (not guaranteed): a failed re-arm pushes this instance's mirrored deadline out (it may have landed),
 * a failed disarm leaves the switch armed in the mirror. An instance cut off from a Redis the others
 * still reach fires switches that are re-armed elsewhere: cancels only.
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
    this.shared = redis && new DueClients(redis, `${config.redis?.keyPrefix ?? ''}{risk}:deadman`, () => clock.now());
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
      if (!this.shared) return await this.fireAll(this.lapsedHere(), false);
      const { fire, outage, resumed } = await this.shared.poll();
      if (outage?.began)
        this.logger.warn(
          `dead-man's switches: Redis did not answer (${String(outage.error)}); lapsed ones fire from this instance's mirror until it does`,
        );
      if (resumed) this.logger.log("dead-man's switches: Redis answers again; they fire from it");
      await this.fireAll(fire, outage !== undefined);
    } finally {
      this.polling = false;
    }
  }

  private async fireAll(clientIds: readonly string[], alone: boolean): Promise<void> {
    await Promise.all(clientIds.map((clientId) => this.fire(clientId, alone)));
  }

  /**
   * One client's cancels. A failure leaves its lease to run out, and another poll (here or elsewhere) runs
   * them again; fired from the mirror (`alone`, Redis out), this instance tries again in a second.
   */
  private async fire(clientId: string, alone: boolean): Promise<void> {
    try {
      const counts = await this.brake.run(clientId, 'dead-man-switch', "the client's dead-man's switch lapsed");
      const how = alone ? " (Redis out: from this instance's mirror)" : '';
      this.logger.warn({ deadManSwitch: counts }, `dead-man's switch of ${clientId} fired${how}`);
      if (!alone) await this.shared?.done(clientId);
    } catch (error) {
      this.logger.error(`dead-man's switch of ${clientId}: its cancels failed (${String(error)}); they run again`);
      if (alone) this.shared?.retryAlone(clientId);
    }
  }

  private lapsedHere(): string[] {
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
