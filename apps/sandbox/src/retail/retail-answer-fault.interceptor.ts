import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { type Observable, catchError, mergeMap } from 'rxjs';

import { SandboxCounters } from '../shared/sandbox-counters.js';
import { retailRouteName } from './retail-rate-limit.guard.js';
import { RetailVenue } from './retail-venue.js';

/**
 * The retail answer fault (RetailVenue.faults.dropAnswers): the route ran (the order was created,
 * modified or refused), then its connection is destroyed before any answer, as a reset after
 * processing looks to the caller. Counted as `retail.answersDropped.<name>`.
 */
@Injectable()
export class RetailAnswerFaultInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly retail: RetailVenue,
    private readonly counters: SandboxCounters,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const name = retailRouteName(this.reflector, context);
    const drops = this.retail.faults.dropAnswers;
    if ((drops[name] ?? 0) <= 0) return next.handle();
    drops[name] = (drops[name] ?? 0) - 1;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const drop = () => {
      this.counters.count(`retail.answersDropped.${name}`);
      request.raw.socket.destroy();
    };
    return next.handle().pipe(
      mergeMap(async (value: unknown) => {
        drop();
        return value;
      }),
      catchError((error: unknown) => {
        drop();
        throw error;
      }),
    );
  }
}
