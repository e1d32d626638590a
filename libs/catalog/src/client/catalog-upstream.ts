import { Inject, Injectable } from '@nestjs/common';
import { Clock, DomainError, ErrorCode, GATEWAY_CONFIG, type JsonReply, urlOf } from '@lib/core';
import { UpstreamCalls, okOrThrow, unusableAnswer } from '@lib/upstream';

import { type CatalogEntry, entryOf } from '../cache/catalog-entry.js';
import { CatalogMetrics } from '../metrics/catalog.metrics.js';
import { type CatalogRouteName, catalogTtlSeconds } from '../routes/catalog-routes.js';
import { CATALOG_BUDGETS } from '../budget/catalog-budgets.js';
import type { CatalogConfigView } from '../config/catalog.config.js';

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
 * The one door to the catalog upstream, on the shared upstream-call pipeline (UpstreamCalls): every
 * call takes the public budget first (spec §8: 20 requests per second per egress IP, bucket
 * `catalog.public`), goes out without credentials (spec §5.3) and comes back as a cacheable entry
 * (200 or 404, bytes untouched) or a problem.
 */
@Injectable()
export class CatalogUpstream {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly budgetWaitMs: number;
  private readonly ttlSeconds: Record<CatalogRouteName, number>;

  constructor(
    @Inject(GATEWAY_CONFIG) config: CatalogConfigView,
    private readonly calls: UpstreamCalls,
    private readonly metrics: CatalogMetrics,
    private readonly clock: Clock,
  ) {
    this.base = config.environments[config.environment]!.catalogUrl;
    this.timeoutMs = config.catalog.requestTimeoutMs;
    this.budgetWaitMs = config.catalog.budgetWaitMs;
    this.ttlSeconds = catalogTtlSeconds(config.catalog.ttlSeconds);
  }

  async fetch(call: CatalogFetch): Promise<CatalogEntry> {
    let reply: JsonReply;
    try {
      ({ reply } = await this.calls.exchange({
        surface: 'catalog',
        url: urlOf(this.base, { path: call.target }),
        method: 'GET',
        requestId: call.requestId,
        timeoutMs: this.timeoutMs,
        budget: CATALOG_BUDGETS.publicCall,
        team: call.team,
        preferWaitMs: this.budgetWaitMs,
      }));
    } catch (error) {
      // A refusal of the budget or of the in-flight bound never reached the upstream; a transport failure did try.
      if (!(
        error instanceof DomainError &&
        (error.code === ErrorCode.RATE_LIMITED || error.code === ErrorCode.IN_FLIGHT_LIMITED)
      ))
        this.metrics.upstreamCall(call.route, 0);
      throw error;
    }
    this.metrics.upstreamCall(call.route, reply.status);
    if (reply.status === 200 || reply.status === 404) {
      const contentType =
        typeof reply.headers['content-type'] === 'string' ? reply.headers['content-type'] : DEFAULT_CONTENT_TYPE;
      return entryOf(reply.status, reply.text, contentType, this.clock.now(), this.ttlSeconds[call.route] * 1000);
    }
    // Anything but 200 and 404 is a failure, mapped by the HTTP table (okOrThrow throws it); a redirect
    // or empty success from a JSON API counts as a bad upstream.
    okOrThrow('catalog', reply);
    throw unusableAnswer('catalog', reply);
  }
}
