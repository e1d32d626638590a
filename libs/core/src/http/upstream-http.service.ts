import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type Dispatcher } from 'undici';

import { REQUEST_ID_HEADER } from '../logging/logging.module.js';

import { GATEWAY_CONFIG } from '../config/config.module.js';
import type { GatewayConfig, HttpConfig } from '../config/config.schema.js';

export type UpstreamRequest = Omit<Dispatcher.RequestOptions, 'origin'> & { origin: string };

export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined;

/** One JSON call to an upstream: everything a surface client decides, nothing it authenticates. */
export interface JsonCall {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Base address of the upstream (origin, optionally with a path prefix). */
  base: string;
  /** Upstream path starting with `/`. */
  path: string;
  /** Arrays become repeated keys (`slugs=a&slugs=b`), as the upstream expects. */
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  requestId?: string;
  /** Deadline for the answer's headers and body, overriding the pool default. */
  timeoutMs?: number;
}

/** The upstream answer as received: status, headers, and the body text untouched. */
export interface JsonReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Local times the request left and the answer arrived (clock-offset learning). */
  sentAt: number;
  receivedAt: number;
}

export function urlOf(call: Pick<JsonCall, 'base' | 'path' | 'query'>): string {
  const base = call.base.endsWith('/') ? call.base.slice(0, -1) : call.base;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(call.query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const qs = params.toString();
  return base + call.path + (qs ? `?${qs}` : '');
}

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

  /** Sends one JSON call to `url` (from `urlOf`) and reads the whole answer; transport errors are thrown as undici raised them. */
  async json(call: JsonCall, url: string): Promise<JsonReply> {
    const target = new URL(url);
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (call.requestId) headers[REQUEST_ID_HEADER] = call.requestId;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const sentAt = Date.now();
    const response = await this.pool(target.origin).request({
      method: call.method,
      path: target.pathname + target.search,
      headers,
      body,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text, sentAt, receivedAt: Date.now() };
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => p.destroy())));
    this.pools.clear();
  }
}
