import type { Duplex } from 'node:stream';

import { RateLimitedError } from '@lib/core';

import type { StreamsConfig } from './streams.config.js';

/** A refused client may retry soon: a connection frees as soon as one of its sockets closes. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Concurrent `/ws` connections per client on this instance. A connection costs the instance that
 * holds it (socket, queues), so the cap is per instance. A slot is taken before the handshake and given
 * back when the raw socket closes, whether the handshake completed or not.
 */
export class WsConnectionCounter {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly maxPerClient: number,
    /** Clients with a cap of their own (`streams.clients.<id>.maxConnections`). */
    private readonly overrides: Readonly<Record<string, number>> = {},
  ) {}

  /** The default cap and every client's own, from the `streams` section. */
  static of(streams: StreamsConfig): WsConnectionCounter {
    const own = Object.entries(streams.clients).flatMap(([id, caps]) =>
      caps.maxConnections === undefined ? [] : [[id, caps.maxConnections] as const],
    );
    return new WsConnectionCounter(streams.maxConnectionsPerClient, Object.fromEntries(own));
  }

  /** Takes a slot for the client's socket, or throws the 429 that refuses the upgrade. */
  admit(clientId: string, socket: Duplex): void {
    const count = this.open.get(clientId) ?? 0;
    const own = this.overrides[clientId];
    const limit = own ?? this.maxPerClient;
    if (count >= limit) {
      const setting =
        own === undefined ? 'streams.maxConnectionsPerClient' : `streams.clients.${clientId}.maxConnections`;
      throw new RateLimitedError(
        `This client already holds ${count} WebSocket connections on this instance, its cap (${setting} is ${limit}).`,
        RETRY_AFTER_SECONDS,
        {
          cap: 'connections',
          limit,
        },
      );
    }
    this.open.set(clientId, count + 1);
    socket.once('close', () => this.release(clientId));
  }

  count(clientId: string): number {
    return this.open.get(clientId) ?? 0;
  }

  private release(clientId: string): void {
    const count = (this.open.get(clientId) ?? 1) - 1;
    if (count > 0) this.open.set(clientId, count);
    else this.open.delete(clientId);
  }
}
