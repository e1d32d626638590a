import { type ArgumentsHost, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { SurfaceError } from './surface-error.js';

export interface ResolvedError {
  status: number;
  message: string;
  code?: string;
}

/**
 * Everything a surface can throw, reduced to status and message: its own refusals, Nest's 404 for
 * unknown routes, and Fastify's body-parsing errors (which Nest hands over as HttpExceptions).
 */
export function resolveError(exception: unknown): ResolvedError {
  if (exception instanceof SurfaceError)
    return { status: exception.status, message: exception.message, code: exception.code };
  if (exception instanceof HttpException) return { status: exception.getStatus(), message: exception.message };
  return { status: 500, message: 'internal error' };
}

/** Base of each surface's global filter: one body shape per upstream surface, for every error. */
export abstract class SurfaceErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(this.constructor.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const error = this.resolve(resolveError(exception));
    if (error.status >= 500)
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    reply
      .status(error.status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(this.body(error)));
  }

  /** A surface may restate an error in its upstream's terms before it is rendered. */
  protected resolve(error: ResolvedError): ResolvedError {
    return error;
  }

  protected abstract body(error: ResolvedError): object;
}
