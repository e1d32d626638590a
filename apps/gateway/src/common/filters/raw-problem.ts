import type { Duplex } from 'node:stream';

import { type DomainError, PROBLEM_CONTENT_TYPE, REQUEST_ID_HEADER, httpStatusOf, problemOf, titleOf } from '@lib/core';

/**
 * Answers on the bare socket with a problem document and closes it once written: for the answers
 * given before Fastify has a request (a refused WebSocket upgrade, a request Node's HTTP parser
 * rejected or timed out).
 */
export function writeRawProblem(socket: Duplex, error: DomainError, requestId: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(problemOf(error, requestId));
  const headers = {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    [REQUEST_ID_HEADER]: requestId,
    Connection: 'close',
    ...error.headers,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${httpStatusOf(error.code)} ${titleOf(error.code)}\r\n${head.join('\r\n')}\r\n\r\n${body}`);
}
