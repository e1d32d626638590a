import { randomBytes } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type GatewayConfig, REDIS, type RedisClient } from '@lib/core';

import { WS_LIMITS } from './ws-protocol.js';

export interface IssuedTicket {
  ticket: string;
  expiresAt: string;
}

/**
 * One-time tickets for browsers, which cannot set headers on a WebSocket upgrade. With Redis a ticket
 * issued by one instance is accepted by any (GETDEL: taken once, cluster-wide); without it, in memory.
 */
@Injectable()
export class WsTicketStore {
  private readonly logger = new Logger(WsTicketStore.name);
  private readonly local = new Map<string, { clientId: string; expiresAt: number }>();
  private readonly prefix: string;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    private readonly clock: Clock,
  ) {
    this.prefix = `${config.redis?.keyPrefix ?? ''}ws:ticket:`;
  }

  async issue(clientId: string): Promise<IssuedTicket> {
    const ticket = randomBytes(24).toString('base64url');
    const expiresAt = this.clock.now() + WS_LIMITS.ticketTtlMs;
    if (this.redis) await this.share(ticket, clientId);
    else this.remember(ticket, clientId, expiresAt);
    return { ticket, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The client id the ticket was issued to, if it is unused and unexpired; the ticket is spent either way. */
  async redeem(ticket: string): Promise<string | undefined> {
    if (!this.redis) {
      const entry = this.local.get(ticket);
      this.local.delete(ticket);
      return entry && entry.expiresAt > this.clock.now() ? entry.clientId : undefined;
    }
    try {
      return (await this.redis.getdel(this.prefix + ticket)) ?? undefined;
    } catch (error) {
      // Fail closed: a ticket that cannot be checked is not accepted.
      this.logger.warn(`Ticket lookup failed: ${String(error)}`);
      return undefined;
    }
  }

  /** Every instance must be able to redeem it: without Redis no ticket is issued (503, not 500). */
  private async share(ticket: string, clientId: string): Promise<void> {
    try {
      await this.redis?.set(this.prefix + ticket, clientId, 'PX', WS_LIMITS.ticketTtlMs);
    } catch (error) {
      throw new DomainError(ErrorCode.SERVICE_UNAVAILABLE, 'WebSocket tickets cannot be issued while Redis is unreachable; servers can connect with their API key.', { cause: error });
    }
  }

  private remember(ticket: string, clientId: string, expiresAt: number): void {
    const now = this.clock.now();
    // Expired tickets are swept on issue, so the map stays bounded by the issue rate over 30 s.
    for (const [key, entry] of this.local) if (entry.expiresAt <= now) this.local.delete(key);
    this.local.set(ticket, { clientId, expiresAt });
  }
}
