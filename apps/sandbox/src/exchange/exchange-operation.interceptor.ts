import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { NEVER, type Observable, catchError, from, mergeMap, throwError } from 'rxjs';

import { FaultBoard } from '../shared/fault-board.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SurfaceError } from '../shared/surface-error.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';
import { EXCHANGE_OPERATION, type ExchangeOperationMeta } from './exchange-operation.decorator.js';
import { FirmRateLimiter } from './rate-limit/firm-rate-limiter.js';
import { rejectForLatency, rejectIfHeldPastStopgap } from './rate-limit/latency-reject.js';
import { RateLimitedError } from './rate-limit/rate-limited.error.js';

/**
 * Runs after the auth guard, in upstream's order: a throttled call is refused before its body is
 * looked at. Then the call is counted (tests count upstream calls by these counters) and, when a
 * delay fault names it, held before it runs: the operation still happens, only late (a new order or
 * cancel/replace held past the exchange's 5 s stopgap is rejected unprocessed instead). A lost request
 * (SandboxFaults.exchangeLostRequests) never runs and is never answered; a bad gateway
 * (SandboxFaults.exchangeBadGateway) is answered 502 and runs a little later. An answer fault
 * (SandboxFaults.exchangeAnswerFaults) loses or delays the answer of an operation that did run.
 */
@Injectable()
export class ExchangeOperationInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: FirmRateLimiter,
    private readonly clock: SandboxClock,
    private readonly counters: SandboxCounters,
    private readonly faults: FaultBoard,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const operation = this.reflector.get<ExchangeOperationMeta | undefined>(EXCHANGE_OPERATION, context.getHandler());
    if (!operation) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (operation.limit) {
      // Per firm (upstream-facts "per-firm rate limits"); the public class is per IP.
      const holder = operation.limit === 'public' ? request.ip : (request.exchangeCaller?.client.firm ?? request.ip);
      const answer = this.limiter.take(operation.limit, holder, this.clock.now());
      if (!answer.ok) {
        this.counters.count(`exchange.throttled.${operation.limit}`);
        throw new RateLimitedError(answer.retryAfterMs);
      }
    }
    const lost = this.faults.active.exchangeLostRequests ?? {};
    if ((lost[operation.name] ?? 0) > 0) {
      lost[operation.name] = (lost[operation.name] ?? 0) - 1;
      this.counters.count(`exchange.requestsLost.${operation.name}`);
      request.raw.socket.destroy();
      return NEVER; // the operation never runs, and nothing is answered
    }
    const badGateway = this.faults.active.exchangeBadGateway?.[operation.name];
    if (badGateway && badGateway.count > 0) {
      badGateway.count--;
      this.counters.count(`exchange.badGateway.${operation.name}`);
      setTimeout(() => {
        this.counters.count(`exchange.calls.${operation.name}`);
        next.handle().subscribe({ error: () => undefined }); // runs; its answer goes nowhere
      }, badGateway.runAfterMs);
      throw new SurfaceError(502, 'upstream connect error or disconnect/reset before headers');
    }
    rejectForLatency(this.faults.active, this.counters, operation.name);
    const delayMs = this.faults.active.exchangeDelayMs?.[operation.name] ?? 0;
    await rejectIfHeldPastStopgap(this.counters, operation.name, delayMs);
    this.counters.count(`exchange.calls.${operation.name}`);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const fault = this.faults.active.exchangeAnswerFaults?.[operation.name];
    if (!fault) return next.handle();
    const slot = this.counters.counter(`exchange.calls.${operation.name}`) % fault.every;
    // The answer travels back whatever it says: a refusal's answer is lost or late as an acceptance's is.
    const deliver = async (): Promise<void> => {
      if (slot < fault.drop) {
        this.counters.count(`exchange.answersDropped.${operation.name}`);
        request.raw.socket.destroy();
      } else if (slot < fault.drop + fault.hold) {
        this.counters.count(`exchange.answersHeld.${operation.name}`);
        await new Promise((resolve) => setTimeout(resolve, fault.holdMs));
      }
    };
    return next.handle().pipe(
      mergeMap(async (value: unknown) => {
        await deliver();
        return value;
      }),
      catchError((error: unknown) => from(deliver()).pipe(mergeMap(() => throwError(() => error)))),
    );
  }
}
