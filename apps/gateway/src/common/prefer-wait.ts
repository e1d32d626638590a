import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GATEWAY_CONFIG, type GatewayConfig } from '@lib/core';
import type { FastifyInstance } from 'fastify';

/** RFC 7240 `Prefer: wait=<seconds>`; other preferences are ignored. */
const WAIT = /(?:^|[,;\s])wait\s*=\s*"?(\d+(?:\.\d+)?)"?/i;

declare module 'fastify' {
  interface FastifyRequest {
    /** `Prefer: wait` in ms, capped by `limits.maxPreferWaitSeconds`; the caller decorators pass it to the budget. */
    preferWaitMs?: number;
  }
}

/**
 * Reads `Prefer: wait` once per request in a Fastify hook (a Nest interceptor would put every route
 * through rxjs) and echoes the honoured value as `Preference-Applied`.
 */
@Injectable()
export class PreferWait implements OnModuleInit {
  private readonly maxWaitMs: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.maxWaitMs = config.limits.maxPreferWaitSeconds * 1000;
  }

  onModuleInit(): void {
    if (this.maxWaitMs === 0) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      const prefer = request.headers.prefer;
      const match = typeof prefer === 'string' ? WAIT.exec(prefer) : null;
      if (match) {
        request.preferWaitMs = Math.min(this.maxWaitMs, Number(match[1]) * 1000);
        reply.header('Preference-Applied', `wait=${request.preferWaitMs / 1000}`);
      }
      done();
    });
  }
}
