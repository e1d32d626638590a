import { randomBytes } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, LuaScript, REDIS, type RedisClient } from '@lib/core';

import { WS_LIMITS } from './ws-protocol.js';
import type { GatewayConfig } from '../config/gateway-config.schema.js';

export interface IssuedTicket {
  ticket: string;
  expiresAt: string;
  /** The topics and families the ticket was narrowed to, when it was. */
  topics?: string[];
}

/** Who a ticket was issued to and, if its minter narrowed it, what it may open. */
export interface RedeemedTicket {
  clientId: string;
  topics?: string[];
}

/** A redeemed ticket, with what giving it back needs: the ticket and how long it had left to live. */
export interface TakenTicket extends RedeemedTicket {
  ticket: string;
  leftMs: number;
}

/** KEYS[1] a ticket: its value and remaining life in ms, deleted; nil when it is unknown or expired. */
const TAKE = new LuaScript(`local value = redis.call('GET', KEYS[1])
if not value then return nil end
local left = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
return {value, left}`);

/**
 * One-time tickets for browsers, which cannot set headers on a WebSocket upgrade. With Redis a ticket
 * issued by one instance is accepted by any (GETDEL: taken once, cluster-wide); without it, in memory.
 */
@Injectable()
export class WsTicketStore {
  private readonly logger = new Logger(WsTicketStore.name);
  private readonly local = new Map<string, RedeemedTicket & { expiresAt: number }>();
  private readonly prefix: string;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    private readonly clock: Clock,
  ) {
    this.prefix = `${config.redis?.keyPrefix ?? ''}ws:ticket:`;
  }

  async issue(clientId: string, topics?: string[]): Promise<IssuedTicket> {
    const ticket = randomBytes(24).toString('base64url');
    const expiresAt = this.clock.now() + WS_LIMITS.ticketTtlMs;
    const holder: RedeemedTicket = topics ? { clientId, topics } : { clientId };
    if (this.redis) await this.share(ticket, holder);
    else this.remember(ticket, holder, expiresAt);
    return { ticket, expiresAt: new Date(expiresAt).toISOString(), ...(topics ? { topics } : {}) };
  }

  /** Who the ticket was issued to, if it is unused and unexpired; the ticket is spent either way (see giveBack). */
  async redeem(ticket: string): Promise<TakenTicket | undefined> {
    if (!this.redis) {
      const entry = this.local.get(ticket);
      this.local.delete(ticket);
      const leftMs = (entry?.expiresAt ?? 0) - this.clock.now();
      return entry && leftMs > 0 ? { ticket, leftMs, clientId: entry.clientId, topics: entry.topics } : undefined;
    }
    try {
      const taken = (await TAKE.run(this.redis, [this.prefix + ticket])) as [string, number] | null;
      const holder = taken && decode(taken[0]);
      return holder ? { ...holder, ticket, leftMs: taken[1] } : undefined;
    } catch (error) {
      // Fail closed: a ticket that cannot be checked is not accepted.
      this.logger.warn(`Ticket lookup failed: ${String(error)}`);
      return undefined;
    }
  }

  /**
   * A ticket whose connection was refused after it was redeemed (a malformed handshake or query, a brake it
   * may not arm, the connection cap) opened nothing: it is good again for the rest of its life, so the
   * browser can correct the call and retry. Best effort: a ticket not given back needs a new one.
   */
  async giveBack(taken: TakenTicket): Promise<void> {
    const holder: RedeemedTicket = taken.topics
      ? { clientId: taken.clientId, topics: taken.topics }
      : { clientId: taken.clientId };
    if (!this.redis) return this.remember(taken.ticket, holder, this.clock.now() + taken.leftMs);
    if (taken.leftMs <= 0) return;
    await this.redis
      .set(this.prefix + taken.ticket, encode(holder), 'PX', taken.leftMs, 'NX')
      .catch((error: unknown) => this.logger.warn(`Ticket not given back: ${String(error)}`));
  }

  /** Every instance must be able to redeem it: without Redis no ticket is issued (503, not 500). */
  private async share(ticket: string, holder: RedeemedTicket): Promise<void> {
    try {
      await this.redis?.set(this.prefix + ticket, encode(holder), 'PX', WS_LIMITS.ticketTtlMs);
    } catch (error) {
      throw new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'WebSocket tickets cannot be issued while Redis is unreachable; servers can connect with their API key.',
        { cause: error },
      );
    }
  }

  private remember(ticket: string, holder: RedeemedTicket, expiresAt: number): void {
    const now = this.clock.now();
    // Expired tickets are swept on issue, so the map stays bounded by the issue rate over 30 s.
    for (const [key, entry] of this.local) if (entry.expiresAt <= now) this.local.delete(key);
    this.local.set(ticket, { ...holder, expiresAt });
  }
}

/** A ticket of the whole client is its id alone (what instances before narrowing wrote and read); a narrowed one is JSON. */
function encode(holder: RedeemedTicket): string {
  return holder.topics ? JSON.stringify({ client: holder.clientId, topics: holder.topics }) : holder.clientId;
}

/** Client ids never start with `{` (config: `[A-Za-z0-9]…`), so the two forms cannot be confused. */
function decode(stored: string): RedeemedTicket | undefined {
  if (!stored.startsWith('{')) return { clientId: stored };
  try {
    const { client, topics } = JSON.parse(stored) as { client?: unknown; topics?: unknown };
    if (typeof client !== 'string' || !Array.isArray(topics) || !topics.every((t) => typeof t === 'string'))
      return undefined;
    return { clientId: client, topics: topics as string[] };
  } catch {
    return undefined;
  }
}
