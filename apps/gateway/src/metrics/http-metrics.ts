import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MetricsRegistry } from '@lib/core';
import type { FastifyInstance } from 'fastify';
import { Histogram } from 'prom-client';

/** Request duration by route template (never the raw URL: bounded label values) and status. */
@Injectable()
export class HttpMetrics implements OnModuleInit {
  private readonly duration: Histogram<'method' | 'route' | 'status'>;

  constructor(
    registry: MetricsRegistry,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.duration = new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Duration of HTTP requests served by the gateway',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
  }
}
