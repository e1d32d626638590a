import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type Dispatcher } from 'undici';

import { GATEWAY_CONFIG } from '../config/config.module.js';
import type { GatewayConfig, HttpConfig } from '../config/config.schema.js';

export type UpstreamRequest = Omit<Dispatcher.RequestOptions, 'origin'> & { origin: string };

/** Keep-alive connection pools, one per upstream origin, with the timeouts of the `http` config section. */
@Injectable()
export class UpstreamHttp implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();
  private readonly http: HttpConfig;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.http = config.http;
  }

  pool(origin: string): Pool {
    const key = new URL(origin).origin;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(key, {
        connections: this.http.connectionsPerOrigin,
        connectTimeout: this.http.connectTimeoutMs,
        headersTimeout: this.http.headersTimeoutMs,
        bodyTimeout: this.http.bodyTimeoutMs,
        keepAliveTimeout: this.http.keepAliveTimeoutMs,
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  request(options: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const { origin, ...rest } = options;
    return this.pool(origin).request(rest);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => p.destroy())));
    this.pools.clear();
  }
}
