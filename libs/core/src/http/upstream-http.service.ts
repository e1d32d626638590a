import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type Dispatcher } from 'undici';

import { steadyNow } from '../clock/clock.js';
import { REQUEST_ID_HEADER } from '../logging/logging.module.js';
import type { Lane } from './bulkheads.js';

import { GATEWAY_CONFIG } from '../config/config.module.js';
import type { BulkheadsConfig } from '../config/bulkheads.schema.js';
import type { HttpConfig } from '../config/config.schema.js';

export type UpstreamRequest = Omit<Dispatcher.RequestOptions, 'origin'> & { origin: string };

export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined;

/** How one JSON request is sent: everything but its address. */
export interface JsonRequest {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  body?: unknown;
  /** The caller's authentication (a bearer token, signature headers); sent as given. */
  headers?: Record<string, string>;
  requestId?: string;
  /** Deadline for the answer's headers and body, overriding the pool default. */
  timeoutMs?: number;
  /** `blocking`: the origin's pool for calls that hold their connection for long (bulkheads.blocking); default `ordinary`. */
  lane?: Lane;
}

/** One call of a surface client: what it sends and where under the upstream's base address; nothing it authenticates. */
export interface JsonCall extends Omit<JsonRequest, 'headers'> {
  /** Upstream path starting with `/`. */
  path: string;
  /** Arrays become repeated keys (`slugs=a&slugs=b`), as the upstream expects. */
  query?: Record<string, QueryValue>;
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

/** The complete address of `call` under `base` (an origin, optionally with a path prefix): what is sent, and signed. */
export function urlOf(baseUrl: string, call: Pick<JsonCall, 'path' | 'query'>): string {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  const qs = call.query ? queryString(call.query) : '';
  return base + call.path + (qs ? `?${qs}` : '');
}

/**
 * `a=1&b=x&b=y`: absent values dropped, lists as repeated keys (`slugs=a&slugs=b`, as the upstreams
 * expect), form-encoded. Keys go in the order `keys` gives and each list's items as `items` arranges
 * them (a cache's canonical form sorts both); by default as given.
 */
export function queryString(
  query: Readonly<Record<string, QueryValue>>,
  keys: readonly string[] = Object.keys(query),
  items: (key: string, values: string[]) => readonly string[] = (_, values) => values,
): string {
  const params = new URLSearchParams();
  for (const key of keys) {
    const value = query[key];
    if (value === undefined) continue;
    if (Array.isArray(value))
      for (const item of items(key, (value as readonly (string | number)[]).map(String))) params.append(key, item);
    else params.append(key, String(value));
  }
  return params.toString();
}

const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Keep-alive connection pools, one per upstream origin, with the timeouts of the `http` config section. */
@Injectable()
export class UpstreamHttp implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();
  private readonly http: HttpConfig;
  private readonly blockingConnections: number;

  constructor(@Inject(GATEWAY_CONFIG) config: { http: HttpConfig; bulkheads: Pick<BulkheadsConfig, 'blocking'> }) {
    this.http = config.http;
    this.blockingConnections = config.bulkheads.blocking.connectionsPerOrigin;
  }

  /**
   * The pool of an origin, one per lane: blocking calls never hold the connections ordinary calls need.
   * Pools are found by the origin's text as given, so a call parses no URL.
   */
  pool(origin: string, lane: Lane = 'ordinary'): Pool {
    const named = lane === 'ordinary' ? origin : `${lane}|${origin}`;
    let pool = this.pools.get(named);
    if (pool) return pool;
    const normal = new URL(origin).origin;
    const key = lane === 'ordinary' ? normal : `${lane}|${normal}`;
    pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(normal, {
        connections: lane === 'ordinary' ? this.http.connectionsPerOrigin : this.blockingConnections,
        connectTimeout: this.http.connectTimeoutMs,
        headersTimeout: this.http.headersTimeoutMs,
        bodyTimeout: this.http.bodyTimeoutMs,
        keepAliveTimeout: this.http.keepAliveTimeoutMs,
      });
      this.pools.set(key, pool);
    }
    this.pools.set(named, pool);
    return pool;
  }

  request(options: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const { origin, ...rest } = options;
    return this.pool(origin).request(rest);
  }

  /** Sends one JSON request to `url` (from `urlOf`) and reads the whole answer; transport errors are thrown as undici raised them. */
  async json(url: string, request: JsonRequest): Promise<JsonReply> {
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (request.requestId) headers[REQUEST_ID_HEADER] = request.requestId;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    // `scheme://authority` is the origin; the rest (path, query) is the request target.
    const origin = ORIGIN.exec(url)?.[0] ?? url;
    const target = url.slice(origin.length);
    const sentAt = steadyNow(); // a signer's server-clock reading: a wall-clock step between the two reads is no round trip
    const response = await this.pool(origin, request.lane).request({
      method: request.method,
      path: target.startsWith('/') ? target : `/${target}`,
      headers,
      body,
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text, sentAt, receivedAt: steadyNow() };
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...new Set(this.pools.values())].map((p) => p.close().catch(() => p.destroy())));
    this.pools.clear();
  }
}
