import { ValidationError } from '@lib/core';
import type { FastifyRequest } from 'fastify';

import { hasDotSegment } from '../common/hooks/request-gate.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** The draft's key is a Structured Field string; any printable ASCII of 1-255 characters is taken, quoted or not. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, or undefined; a malformed or repeated one is a 400 naming the header. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? undefined : raw.trim().replace(/^"(.*)"$/, '$1');
  if (text === undefined || !KEY.test(text)) {
    throw new ValidationError([
      { path: 'headers.idempotency-key', message: 'expected one key of 1 to 255 printable ASCII characters' },
    ]);
  }
  // A key is looked up as a path segment (GET /orders/key/<key>), where dot segments are refused: a key
  // that is or holds one would send an order whose outcome the caller could never read back by its key.
  if (hasDotSegment(text))
    throw new ValidationError([
      { path: 'headers.idempotency-key', message: 'a key may not be or hold the dot segments . and ..' },
    ]);
  return text;
}
