import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { RetailSigner } from '@lib/auth';
import { GATEWAY_CONFIG, steadyNow } from '@lib/core';

import { RetailSocket, type RetailSocketOptions } from './retail-socket.js';
import type { RetailConfigView } from '../config/retail.config.js';

export type RetailChannel = 'markets' | 'private';

/** upstream-facts WebSocket protocol: the two channel paths. */
const CHANNEL_PATHS: Record<RetailChannel, string> = { markets: '/v1/ws/markets', private: '/v1/ws/private' };

export type RetailStreamOptions = Pick<
  RetailSocketOptions,
  'heartbeatTimeoutMs' | 'backoffInitialMs' | 'backoffMaxMs' | 'ackTimeoutMs'
>;
export const RETAIL_STREAM_OPTIONS = Symbol('RETAIL_STREAM_OPTIONS');

const DEFAULTS: RetailStreamOptions = {
  // The upstream's heartbeat interval is not published; the sandbox sends one every 5 s. Six missed is dead.
  heartbeatTimeoutMs: 30_000,
  backoffInitialMs: 100,
  backoffMaxMs: 15_000,
  ackTimeoutMs: 10_000,
};

/**
 * The retail WebSocket connections of this gateway: one per (key, channel), made on first use, signed
 * with the key like a REST call (GET of the channel path), closed at shutdown.
 */
@Injectable()
export class RetailStreams implements OnApplicationShutdown {
  private readonly logger = new Logger(RetailStreams.name);
  private readonly sockets = new Map<string, RetailSocket>();
  private readonly wsBase: string;
  private readonly options: RetailStreamOptions;

  constructor(
    @Inject(GATEWAY_CONFIG) config: RetailConfigView,
    private readonly signer: RetailSigner,
    @Optional() @Inject(RETAIL_STREAM_OPTIONS) options?: Partial<RetailStreamOptions>,
  ) {
    const base = config.environments[config.environment]!.retailUrl.replace(/\/$/, '');
    this.wsBase = base.replace(/^http/, 'ws');
    this.options = { ...DEFAULTS, ...options };
  }

  socket(account: string, channel: RetailChannel): RetailSocket {
    const key = `${account}\u0000${channel}`;
    let socket = this.sockets.get(key);
    if (!socket) {
      const url = this.wsBase + CHANNEL_PATHS[channel];
      socket = new RetailSocket({
        ...this.options,
        url,
        headers: () => this.signer.sign(account, 'GET', url),
        // The upgrade answer is dated like any other: it keeps the learned server clock current.
        onHandshake: (response, sentAt, accepted) => {
          const date = typeof response.headers.date === 'string' ? response.headers.date : undefined;
          if (accepted) this.signer.observeServerDate(date, sentAt, steadyNow());
          else if (response.statusCode === 401) this.signer.observeUnauthorized(date, sentAt, steadyNow());
        },
        warn: (message) => this.logger.warn(message),
      });
      this.sockets.set(key, socket);
    }
    return socket;
  }

  onApplicationShutdown(): void {
    for (const socket of this.sockets.values()) socket.close();
    this.sockets.clear();
  }
}
