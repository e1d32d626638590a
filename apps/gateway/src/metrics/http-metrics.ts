import { Injectable } from '@nestjs/common';
import { type HistogramSeries, MetricsRegistry, SeriesHistogram } from '@lib/core';
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

  /** One series, for a caller that observes the same labels on every request (the catalog's hit path keeps it). */
  seriesOf(method: string, route: string, status: number): HistogramSeries {
    return this.duration.seriesOf(method, route, status);
  }
}
