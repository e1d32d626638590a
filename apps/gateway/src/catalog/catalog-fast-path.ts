import type { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import { type CatalogEntry, CatalogClient, type CatalogRouteName, ageSeconds, cacheControl } from '@lib/catalog';
import {
  Clock,
  type CounterSeries,
  type HistogramSeries,
  MetricsRegistry,
  type Scope,
  SeriesCounter,
  requestIdOf,
} from '@lib/core';

import { ClientAuthGuard } from '../common/guards/client-auth.guard.js';
import { type EncodedHit, HitResponses } from './hit-response.js';

/** Distinct request targets remembered, and the longest one: at most ~2 MB of URLs. */
const URLS_KEPT = 4_096;
const LONGEST_URL = 512;

/** A request target the Fastify route already served: everything a hit of it needs, worked out once. */
interface KnownTarget {
  route: CatalogRouteName;
  /** The route's pattern (`/catalog/v1/events/:id`): the metric's label and the access line's route. */
  pattern: string;
  scope: Scope;
  key: string;
  /** The URL as the access line writes it (scrubbed, JSON). */
  urlJson: string;
  duration: HistogramSeries;
  /** catalog_cache_requests_total{route, result="hit"}, resolved once. */
  hits: CounterSeries;
}

/** Node's IncomingMessage field (node:_http_incoming) settled() sets; @types/node does not declare it. */
interface RequestInternals {
  _dumped?: boolean;
}

/**
 * Marks a bodyless request answered by the hit path as drained, as Node's `_dump()` would once the
 * response finished: Node then resumes the request's stream only to read its end (a nextTick, the
 * stream's flow and end events, its destruction; more instructions than the hit's own work). The
 * request is not read by anyone after a hit, and had no body to drop (serve() checked), so the
 * connection goes on to its next request as before; the request object is released with the next.
 */
function settled(req: IncomingMessage): void {
  const internals = req as IncomingMessage & RequestInternals;
  if (internals._dumped === false) internals._dumped = true;
}

/** What a served hit reports, as the onResponse hook would for a Fastify request. */
export interface CompletedHit {
  seriesOf(method: string, route: string, status: number): HistogramSeries;
  urlJson(url: string): string;
  write(
    req: IncomingMessage,
    requestId: string,
    client: string | undefined,
    status: number,
    elapsedMs: number,
    route: string | undefined,
    urlJson?: string,
  ): void;
}

/**
 * The catalog's cache hit, answered on Node's `request` event before Fastify builds a request, runs
 * its router and its ten hooks (Nest's six, middie's, the request gate, the completion hook): about a
 * third of a hit's instructions went there (callgrind, see the catalog readme fragment).
 *
 * It serves only what the Fastify route would answer with a 200 from this process's memory, and
 * answers nothing else: a request target the route has not validated yet, another method, a body,
 * If-None-Match, a key not seen verified, a missing scope, no fresh entry, an exhausted inbound rate
 * or a gateway shutting down all go to Fastify unchanged, which answers (and counts, and refuses)
 * them as before. A target is remembered only after the route admitted and validated it: the raw
 * target alone decides routing, parameters and query for Fastify, so the same target maps to the same
 * route and cache key.
 *
 * A hit it serves does what the Fastify route does, in the same order: the key (a remembered one),
 * the scope, the entry (counted as a hit, its LRU mark set), one token of the client's inbound rate,
 * the same headers in the same order and the same bytes, then the request's duration metric and its
 * access line. Those two are taken when the response is handed to the socket rather than at its
 * `finish` event (Fastify's onResponse), a difference of one write's completion.
 */
@Injectable()
export class CatalogFastPath {
  private readonly targets = new Map<string, KnownTarget>();
  private readonly encoded = new WeakMap<CatalogEntry, EncodedHit>();
  private readonly responses: HitResponses;
  private completed: CompletedHit | undefined;
  private closing: () => boolean = () => true;
  /** Hits answered here; catalog_cache_requests_total{result="hit"} counts these and Fastify's alike. */
  private readonly early: CounterSeries;

  constructor(
    private readonly auth: ClientAuthGuard,
    private readonly catalog: CatalogClient,
    private readonly clock: Clock,
    registry: MetricsRegistry,
  ) {
    this.early = new SeriesCounter({
      name: 'catalog_cache_early_hits_total',
      help: 'Catalog cache hits answered before Fastify (the hit path); every other catalog request goes through Fastify',
      labelNames: [],
      registers: [registry],
    }).series({});
    this.responses = new HitResponses(
      new SeriesCounter({
        name: 'catalog_cache_early_hit_heads_total',
        help: "Catalog hits answered before Fastify whose response head the gateway wrote itself (one socket write); the others' Node wrote",
        labelNames: [],
        registers: [registry],
      }).series({}),
    );
  }

  /**
   * Puts the hit path in front of Fastify's request handler on the adapter's server. It must see the
   * shutdown Nest's adapter answers 503 for (`isShuttingDown`, a private field set first thing in
   * app.close()), and be the only request listener: otherwise it is left out (a warning) and every
   * request goes through Fastify.
   */
  install(adapter: FastifyAdapter, completed: CompletedHit): boolean {
    const logger = new Logger('CatalogFastPath');
    if (typeof Reflect.get(adapter, 'isShuttingDown') !== 'boolean') {
      logger.warn("the Fastify adapter has no 'isShuttingDown' flag: catalog hits go through Fastify");
      return false;
    }
    const server = adapter.getInstance().server;
    const handlers = server.listeners('request');
    if (handlers.length !== 1) {
      logger.warn("the server has more than one 'request' listener: catalog hits go through Fastify");
      return false;
    }
    const fastify = handlers[0] as (req: IncomingMessage, res: ServerResponse) => void;
    this.completed = completed;
    this.closing = () => Reflect.get(adapter, 'isShuttingDown') === true;
    server.removeListener('request', fastify);
    server.on('request', (req, res) => {
      if (!this.serve(req, res)) fastify(req, res);
    });
    return true;
  }

  /** Called by the Fastify route once it admitted and validated a GET: later hits of this target may come here. */
  remember(url: string, route: CatalogRouteName, pattern: string, scope: Scope, keyOf: () => string): void {
    const completed = this.completed;
    if (completed === undefined || url.length > LONGEST_URL || this.targets.has(url)) return;
    if (this.targets.size >= URLS_KEPT) this.targets.clear();
    this.targets.set(url, {
      route,
      pattern,
      scope,
      key: keyOf(),
      urlJson: completed.urlJson(url),
      duration: completed.seriesOf('GET', pattern, 200),
      hits: this.catalog.hitCounter(route),
    });
  }

  /** True when it answered the request; false when Fastify must (nothing was counted, sent or spent). */
  private serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || req.url === undefined || this.completed === undefined) return false;
    const target = this.targets.get(req.url);
    if (target === undefined) return false;
    // One clock read for the whole hit: the entry's freshness and age, the inbound token, the start of its duration.
    const now = this.clock.now();
    const headers = req.headers;
    if (
      headers['if-none-match'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      (headers['content-length'] ?? '0') !== '0'
    )
      return false;
    if (this.closing()) return false;
    const client = this.auth.knownClient(req);
    if (client === undefined || !client.scopes.has(target.scope)) return false;
    const entry = this.catalog.freshHit(target.key, now, target.hits);
    if (entry === undefined) return false;
    if (entry.status !== 200 || !this.auth.takeInbound(client, now)) return false;
    const requestId = requestIdOf(req);
    this.responses.send(res, requestId, this.encodedOf(entry), ageSeconds(entry, now));
    settled(req);
    this.early.inc();
    const elapsedMs = this.clock.now() - now;
    target.duration.observe(elapsedMs / 1000);
    this.completed.write(req, requestId, client.id, 200, elapsedMs, target.pattern, target.urlJson);
    return true;
  }

  private encodedOf(entry: CatalogEntry): EncodedHit {
    let sent = this.encoded.get(entry);
    if (sent === undefined) {
      sent = this.responses.encode(entry.etag, cacheControl(entry), entry.contentType, entry.body);
      this.encoded.set(entry, sent);
    }
    return sent;
  }
}
