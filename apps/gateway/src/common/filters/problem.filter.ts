import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import { ErrorCode, PROBLEM_CONTENT_TYPE, REQUEST_ID_HEADER, httpStatusOf, problemOf, toDomainError } from '@lib/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

const logger = new Logger('Problem');

/** Sends any error as application/problem+json (RFC 9457); unknown errors become a bare 500 and are logged. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, exception: unknown): void {
  const error = toDomainError(exception);
  if (error.code === ErrorCode.INTERNAL) logger.error({ err: exception, requestId: request.id }, 'unhandled error');
  reply
    .status(httpStatusOf(error.code))
    .headers(error.headers)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    // Also on errors answered before the onRequest hook ran (Fastify's frameworkErrors).
    .header(REQUEST_ID_HEADER, request.id)
    .send(JSON.stringify(problemOf(error, request.id)));
}

/** Every error of a Nest route leaves through sendProblem. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendProblem(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception);
  }
}
