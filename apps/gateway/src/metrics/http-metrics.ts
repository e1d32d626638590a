import { Injectable } from '@nestjs/common';
import { type HistogramSeries, MetricsRegistry, SeriesHistogram } from '@lib/core';
import type { FastifyReply } from 'fastify';

/**
 * Request duration by method, route template (never the raw URL: bounded label values) and status.
 * Each combination's series is resolved once and kept in nested maps, so an observation costs three
 * map lookups of strings and a number that already exist, not a label key built per request.
 */
@Injectable()
export class HttpMetrics {
  private readonly duration: SeriesHistogram<'method' | 'route' | 'status'>;
  private readonly series = new Map<string, Map<string, Map<number, HistogramSeries>>>();

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
    const template = route ?? 'unmatched';
    const status = reply.statusCode;
    let routes = this.series.get(method);
    if (!routes) this.series.set(method, (routes = new Map()));
    let statuses = routes.get(template);
    if (!statuses) routes.set(template, (statuses = new Map()));
    let series = statuses.get(status);
    if (!series) statuses.set(status, (series = this.duration.series({ method, route: template, status: String(status) })));
    series.observe(reply.elapsedTime / 1000);
  }
}
