import { Inject, Injectable } from '@nestjs/common';
import { Clock, GATEWAY_CONFIG, type GatewayConfig, UpstreamHttp, parseBody, upstreamError, upstreamTransportError, urlOf } from '@lib/core';
import { BudgetGate, ROUTE_BUDGETS } from '@lib/ratelimit';

import { type CatalogEntry, entryOf } from '../cache/catalog-entry.js';
import { CatalogMetrics } from '../metrics/catalog.metrics.js';
import type { CatalogRouteName } from '../routes/catalog-routes.js';

export interface CatalogFetch {
  route: CatalogRouteName;
  /** Upstream path and canonical query (see upstreamTarget). */
  target: string;
  requestId?: string;
  /** The team whose request caused the call: its share of the public budget is its ceiling. */
  team?: string;
}

const DEFAULT_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The one door to the catalog upstream: every call takes the public budget first (spec §8: 20
 * requests per second per egress IP, bucket `catalog.public`), goes out without credentials (spec
 * §5.3) and comes back as a cacheable entry (200 or 404, bytes untouched) or a problem.
 */
@Injectable()
export class CatalogUpstream {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly budgetWaitMs: number;
  private readonly ttlSeconds: GatewayConfig['catalog']['ttlSeconds'];

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly http: UpstreamHttp,
    private readonly budget: BudgetGate,
    private readonly metrics: CatalogMetrics,
    private readonly clock: Clock,
  ) {
    this.base = config.environments[config.environment]!.catalogUrl;
    this.timeoutMs = config.catalog.requestTimeoutMs;
    this.budgetWaitMs = config.catalog.budgetWaitMs;
    this.ttlSeconds = config.catalog.ttlSeconds;
  }

  async fetch(call: CatalogFetch): Promise<CatalogEntry> {
    await this.budget.spend(ROUTE_BUDGETS.catalog.publicCall, call.team, undefined, this.budgetWaitMs);
    const url = urlOf(this.base, { path: call.target });
    let reply;
    try {
      reply = await this.http.json(url, { method: 'GET', requestId: call.requestId, timeoutMs: this.timeoutMs });
    } catch (error) {
      this.metrics.upstreamCall(call.route, 0);
      throw upstreamTransportError('catalog', error);
    }
    this.metrics.upstreamCall(call.route, reply.status);
    if (reply.status === 200 || reply.status === 404) {
      const contentType = typeof reply.headers['content-type'] === 'string' ? reply.headers['content-type'] : DEFAULT_CONTENT_TYPE;
      return entryOf(reply.status, reply.text, contentType, this.clock.now(), this.ttlSeconds[call.route] * 1000);
    }
    // An upstream 429 stops every instance from spending the public budget for its Retry-After.
    await this.budget.feedback(ROUTE_BUDGETS.catalog.publicCall, reply);
    const retryAfter = typeof reply.headers['retry-after'] === 'string' ? reply.headers['retry-after'] : undefined;
    // Anything but 200 and 404 is a failure; a redirect or empty success from a JSON API counts as a bad upstream.
    throw upstreamError('catalog', { status: reply.status >= 400 ? reply.status : 502, body: parseBody(reply.text), retryAfter });
  }
}
