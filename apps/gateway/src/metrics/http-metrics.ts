import { Injectable } from '@nestjs/common';
import { MetricsRegistry, SeriesHistogram } from '@lib/core';
import type { FastifyReply } from 'fastify';

/** Request duration by method, route template (never the raw URL: bounded label values) and status. */
@Injectable()
export class HttpMetrics {
  private readonly duration: SeriesHistogram<'method' | 'route' | 'status'>;

  constructor(registry: MetricsRegistry) {
    this.duration = new SeriesHistogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Duration of HTTP requests served by the gateway',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  observe(method: string, route: string | undefined, reply: FastifyReply): void {
    this.duration.seriesOf(method, route ?? 'unmatched', reply.statusCode).observe(reply.elapsedTime / 1000);
  }
}
