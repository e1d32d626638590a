import type { IncomingMessage } from 'node:http';

import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { HistogramSeries } from '@lib/core';
import type { FastifyInstance } from 'fastify';

import { HttpMetrics } from '../../metrics/http-metrics.js';
import type { CompletedHit } from '../../catalog/catalog-fast-path.js';
import { AccessLog } from '../logging/access-log.js';

/**
 * The one onResponse hook: the request's metric and its access line. One hook rather than one per
 * observer, because each hook is another pass of Fastify's hook runner on every request and each
 * read of `request.routeOptions` builds a fresh options object.
 */
@Injectable()
export class CompletedRequests implements OnModuleInit, CompletedHit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: HttpMetrics,
    private readonly accessLog: AccessLog,
  ) {}

  /** The duration series of one label set, kept by the catalog's hit path (CatalogFastPath). */
  seriesOf(method: string, route: string, status: number): HistogramSeries {
    return this.metrics.seriesOf(method, route, status);
  }

  urlJson(url: string): string {
    return this.accessLog.urlJson(url);
  }

  /** The access line of a request served before Fastify (the catalog's hit path). */
  write(
    req: IncomingMessage,
    requestId: string,
    client: string | undefined,
    status: number,
    elapsedMs: number,
    route: string | undefined,
    urlJson?: string,
  ): void {
    this.accessLog.write(req, requestId, client, status, elapsedMs, route, urlJson);
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url;
      this.metrics.observe(request.method, route, reply);
      this.accessLog.record(request, reply, route);
      done();
    });
  }
}
