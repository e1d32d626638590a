import { type ArgumentsHost, Catch } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { type ResolvedError, SurfaceErrorFilter } from '../shared/surface-error.filter.js';
import { RetailRateLimitedError } from './retail-rate-limit.guard.js';

/** Every error of the retail surface as `{message}`, the body the official SDK reads (upstream-facts); 429 also says its status. */
@Catch()
export class RetailErrorFilter extends SurfaceErrorFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    if (exception instanceof RetailRateLimitedError) {
      host.switchToHttp().getResponse<FastifyReply>().header('retry-after', String(exception.retryAfterSeconds));
    }
    super.catch(exception, host);
  }

  protected body({ status, message }: ResolvedError): object {
    return status === 429 ? { status, message } : { message };
  }
}
