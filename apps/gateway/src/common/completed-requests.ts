import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

import { HttpMetrics } from '../metrics/http-metrics.js';
import { AccessLog } from './access-log.js';

/**
 * The one onResponse hook: the request's metric and its access line. One hook rather than one per
 * observer, because each hook is another pass of Fastify's hook runner on every request and each
 * read of `request.routeOptions` builds a fresh options object.
 */
@Injectable()
export class CompletedRequests implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: HttpMetrics,
    private readonly accessLog: AccessLog,
  ) {}

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
