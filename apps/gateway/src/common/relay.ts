import type { JsonReply } from '@lib/core';
import type { FastifyReply } from 'fastify';

/** Success bodies pass through unchanged: the upstream's bytes, status and JSON content type. */
export function relay(res: FastifyReply, upstream: JsonReply): void {
  res
    .status(upstream.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(upstream.text === '' ? '{}' : upstream.text);
}
