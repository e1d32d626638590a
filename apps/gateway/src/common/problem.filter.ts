import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import { ErrorCode, PROBLEM_CONTENT_TYPE, httpStatusOf, problemOf, toDomainError } from '@lib/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Every error leaves as application/problem+json (RFC 9457); unknown errors become a bare 500. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problem');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = toDomainError(exception);
    if (error.code === ErrorCode.INTERNAL) this.logger.error({ err: exception, requestId: request.id }, 'unhandled error');
    const problem = problemOf(error, request.id);
    reply
      .status(httpStatusOf(error.code))
      .headers(error.headers)
      .header('content-type', PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problem));
  }
}
