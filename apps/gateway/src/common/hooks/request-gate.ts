import { DomainError, ErrorCode, NotFoundError, REQUEST_ID_HEADER, ValidationError, hasDotSegment } from '@lib/core';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';

import type { ClientAuthGuard } from '../guards/client-auth.guard.js';
import { sendProblem } from '../filters/problem.filter.js';

type Gate = 'public' | 'client';

/**
 * What the gate does on a route: the route's own config says whether it is public (@Public() on a
 * Nest handler or controller, markPublicRoutes for what is registered on Fastify directly), and on
 * a public wildcard route of files, whether the file asked for is one it serves.
 */
function gateOf(config: FastifyContextConfig, params: unknown): Gate {
  if (config.public !== true) return 'client';
  if (config.publicFiles && !config.publicFiles.has((params as Record<string, string>)['*']))
    throw new NotFoundError('No such document.');
  return 'public';
}

/**
 * Path parameters become upstream path segments: a dot segment there would move the signed call to
 * another upstream route, so it is refused before anything else looks at the request.
 */
function refuseDotSegments(params: unknown): void {
  for (const [name, value] of Object.entries(params as Record<string, string>)) {
    if (hasDotSegment(value))
      throw new ValidationError([
        { path: `params.${name}`, message: 'A path parameter may not be or hold the dot segments . and ..' },
      ]);
  }
}

const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';

/**
 * The one onRequest hook: the request id header, then admission before anything is read. A route
 * that needs a client gets its key checked (401, failed-login limit) and its inbound rate (429) here,
 * so no body of an unauthenticated caller, or of one already over its rate, is ever read or parsed.
 * HEAD on such a route is 405: Fastify would run the GET handler, upstream call and budget included,
 * to throw its body away. An unknown route is 404 without a key, unless the request carries a body.
 */
export function installRequestGate(fastify: FastifyInstance, guard: ClientAuthGuard): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    // Set when the request arrives (error answers keep it): no onSend hook, so Fastify skips that stage on every reply.
    reply.header(REQUEST_ID_HEADER, request.id);
    try {
      const { url, config } = request.routeOptions;
      const gate = url === undefined ? (hasBody(request) ? 'client' : 'public') : gateOf(config, request.params);
      if (gate === 'client') {
        if (request.method === 'HEAD')
          throw new DomainError(ErrorCode.METHOD_NOT_ALLOWED, 'HEAD is not served on API routes: use GET.', {
            headers: { Allow: 'GET' },
          });
        guard.identify(request, config.cancels === true);
        refuseDotSegments(request.params);
      }
    } catch (error) {
      sendProblem(request, reply, error);
      return;
    }
    done();
  });
}
