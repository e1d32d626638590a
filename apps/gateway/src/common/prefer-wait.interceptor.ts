import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { type CallContext, GATEWAY_CONFIG, type GatewayConfig, callContext } from '@lib/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

/** RFC 7240 `Prefer: wait=<seconds>`; other preferences are ignored. */
const WAIT = /(?:^|[,;\s])wait\s*=\s*"?(\d+(?:\.\d+)?)"?/i;

/**
 * Reads `Prefer: wait` and runs the handler (pipes included) inside a call context, so the budget
 * gate can queue the upstream call instead of answering 429. The wait is capped by config and the
 * honoured value is echoed as `Preference-Applied`.
 */
@Injectable()
export class PreferWaitInterceptor implements NestInterceptor {
  private readonly maxWaitMs: number;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.maxWaitMs = config.limits.maxPreferWaitSeconds * 1000;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const prefer = http.getRequest<FastifyRequest>().headers.prefer;
    const match = typeof prefer === 'string' ? WAIT.exec(prefer) : null;
    if (!match || this.maxWaitMs === 0) return next.handle();
    const waitMs = Math.min(this.maxWaitMs, Number(match[1]) * 1000);
    http.getResponse<FastifyReply>().header('Preference-Applied', `wait=${waitMs / 1000}`);
    const store: CallContext = { preferWaitMs: waitMs };
    return new Observable((subscriber) => callContext.run(store, () => next.handle().subscribe(subscriber)));
  }
}
