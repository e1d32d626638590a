import type { Duplex } from 'node:stream';

import { RateLimitedError } from '@lib/core';

/** A refused client may retry soon: a connection frees as soon as one of its sockets closes. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Concurrent `/ws` connections per client on this instance. A connection costs the instance that
 * holds it (socket, queues), so the cap is per instance. A slot is taken before the handshake and given
 * back when the raw socket closes, whether the handshake completed or not.
 */
export class WsConnectionCounter {
  private readonly open = new Map<string, number>();

  constructor(private readonly maxPerClient: number) {}

  /** Takes a slot for the client's socket, or throws the 429 that refuses the upgrade. */
  admit(clientId: string, socket: Duplex): void {
    const count = this.open.get(clientId) ?? 0;
    if (count >= this.maxPerClient) {
      throw new RateLimitedError(`This client already holds ${count} WebSocket connections, its cap (streams.maxConnectionsPerClient is ${this.maxPerClient}).`, RETRY_AFTER_SECONDS, {
        cap: 'connections',
        limit: this.maxPerClient,
      });
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
