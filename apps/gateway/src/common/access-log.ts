import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ACCESS_LOGGER, redactUrl } from '@lib/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

const QUIET_ROUTES = new Set(['/metrics', '/health/live', '/health/ready']);

/**
 * One line per request: who, what (secret query values redacted, no headers), status and time. Flat
 * on purpose: pino writes top-level strings and numbers itself, but hands any nested object to
 * JSON.stringify, which cost more than the rest of the line.
 */
@Injectable()
export class AccessLog implements OnModuleInit {
  constructor(
    @Inject(ACCESS_LOGGER) private readonly logger: Logger,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      const status = reply.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (this.logger.isLevelEnabled(level) && !QUIET_ROUTES.has(request.routeOptions.url ?? '')) {
        this.logger[level](
          {
            method: request.method,
            url: redactUrl(request.url),
            remoteAddress: request.socket.remoteAddress,
            userAgent: request.headers['user-agent'],
            requestId: request.id,
            client: request.client?.id,
            status,
            ms: Math.round(reply.elapsedTime * 100) / 100,
          },
          'request completed',
        );
      }
      done();
    });
  }
}
