import { type ArgumentsHost, Catch } from '@nestjs/common';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { FastifyReply } from 'fastify';

import { EngineError, engineErrorStatus } from '../engine/index.js';
import { type ResolvedError, SurfaceErrorFilter } from '../shared/surface-error.filter.js';
import { SurfaceError } from '../shared/surface-error.js';
import { RateLimitedError } from './rate-limit/rate-limited.error.js';

/** Every error of the exchange surface in the gRPC-status shape `{code, message, details}` (upstream-facts). */
@Catch()
export class ExchangeErrorFilter extends SurfaceErrorFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    if (exception instanceof RateLimitedError) {
      host.switchToHttp().getResponse<FastifyReply>().header('retry-after', String(exception.retryAfterSeconds));
    }
    // The engine's refusals carry the status the exchange gives them (409 duplicate, 404 unknown, ...).
    const error =
      exception instanceof EngineError
        ? new SurfaceError(engineErrorStatus(exception.code), exception.message)
        : exception;
    super.catch(error, host);
  }

  protected body({ status, message }: ResolvedError): object {
    return { code: grpcCodeOf(status), message, details: [] };
  }
}

/** HTTP status → gRPC code, the inverse of grpc-gateway's table, with upstream-facts' own statuses (409, 413, 422). */
export function grpcCodeOf(status: number): GrpcStatus {
  switch (status) {
    case 400:
    case 413:
    case 415:
      return GrpcStatus.INVALID_ARGUMENT;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.NOT_FOUND;
    case 405:
    case 501:
      return GrpcStatus.UNIMPLEMENTED;
    case 409:
      return GrpcStatus.ALREADY_EXISTS;
    case 422:
      return GrpcStatus.FAILED_PRECONDITION;
    case 429:
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case 503:
      return GrpcStatus.UNAVAILABLE;
    case 504:
      return GrpcStatus.DEADLINE_EXCEEDED;
    default:
      return status >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN;
  }
}
