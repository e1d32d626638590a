import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GATEWAY_CONFIG } from '@lib/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../../config/gateway-config.schema.js';

/** RFC 7240 `Prefer: wait=<seconds>`; other preferences are ignored. */
const WAIT = /(?:^|[,;\s])wait\s*=\s*"?(\d+(?:\.\d+)?)"?/i;

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * `Prefer: wait` in ms, capped by `limits.maxPreferWaitSeconds`; the caller decorators pass it to
     * the budget, whose decision echoes it as `Preference-Applied` (only routes that spend budget apply it).
     */
    readonly preferWaitMs: number | undefined;
  }
}

/**
 * `request.preferWaitMs`: a getter on Fastify's request prototype, so the header is parsed only by
 * the routes that read it, not on every request by a hook.
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
    const maxWaitMs = this.maxWaitMs;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.decorateRequest('preferWaitMs', {
      getter(this: FastifyRequest): number | undefined {
        const prefer = this.headers.prefer;
        const match = maxWaitMs > 0 && typeof prefer === 'string' ? WAIT.exec(prefer) : null;
        return match ? Math.min(maxWaitMs, Number(match[1]) * 1000) : undefined;
      },
    });
  }
}
