import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

import { DomainError, ErrorCode, REQUEST_ID_HEADER, requestIdOf, toDomainError } from '@lib/core';
import type { FastifyHttpOptions } from 'fastify';

import { ClientAddresses } from './client-address.js';
import { sendProblem } from '../filters/problem.filter.js';
import { writeRawProblem } from '../filters/raw-problem.js';
import type { GatewayConfig } from '../../config/gateway-config.schema.js';

/** Statuses of the errors Node's HTTP parser raises before Fastify has a request (the rest are 400). */
const PARSER_STATUSES: Record<string, number> = { ERR_HTTP_REQUEST_TIMEOUT: 408, HPE_HEADER_OVERFLOW: 431 };

/**
 * Fastify's options from `server`: body limit, timeouts, the client address, and problem documents
 * for the errors Fastify and Node answer before any route runs.
 */
export function fastifyOptions(server: GatewayConfig['server']): FastifyHttpOptions<Server> {
  const addresses = new ClientAddresses(server.trustProxy, server.trustedProxies);
  return {
    bodyLimit: server.bodyLimitBytes,
    trustProxy: server.trustProxy ? addresses.trusts : false,
    return503OnClosing: true,
    requestTimeout: server.requestTimeoutMs,
    connectionTimeout: server.idleTimeoutMs,
    keepAliveTimeout: server.keepAliveTimeoutMs,
    http: {
      headersTimeout: server.headersTimeoutMs,
      // Node checks the header and request deadlines on this interval (30 s by default, which would let a slow client overstay by that much).
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, server.headersTimeoutMs / 4)),
    },
    // One request id for Fastify, the log line and the upstream call: normalise it onto the raw header.
    genReqId: (req: IncomingMessage) => {
      const id = requestIdOf(req);
      req.headers[REQUEST_ID_HEADER] = id;
      return id;
    },
    // A URL that does not decode, a path parameter over Fastify's length limit: answered before routing.
    frameworkErrors: (error, request, reply) => sendProblem(request, reply, error),
    clientErrorHandler: answerClientError,
  };
}

/** Node's HTTP parser refused the request (oversized or malformed headers, a timeout): a problem document, then close. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = PARSER_STATUSES[error.code ?? ''] ?? 400;
  writeRawProblem(socket, toDomainError({ statusCode: status }), randomUUID());
}

/**
 * A CONNECT request (a proxy tunnel) is handed by Node to the server's 'connect' event, never to Fastify:
 * with no listener its socket was closed without an answer. The gateway is no proxy: a 405 problem, then close.
 */
export function refuseConnect(server: Server): void {
  server.on('connect', (req: IncomingMessage, socket: Duplex) =>
    writeRawProblem(
      socket,
      new DomainError(ErrorCode.METHOD_NOT_ALLOWED, 'CONNECT is not served: the gateway is not a proxy.'),
      requestIdOf(req),
    ),
  );
}
