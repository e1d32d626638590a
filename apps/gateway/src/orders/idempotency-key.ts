import { ValidationError } from '@lib/core';
import type { FastifyRequest } from 'fastify';

import { hasDotSegment } from '@lib/core';
import { headerCount } from '../common/http/raw-headers.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** The draft's key is a Structured Field string: printable ASCII (space included) of 1-255 characters, quoted or not. */
const KEY = /^[\x20-\x7e]{1,255}$/;
/** A quoted key: a Structured Field string, whose `\"` and `\\` stand for `"` and `\` (RFC 9651 section 3.3.3). */
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
/**
 * The prefixes of the keys the gateway gives calls sent without one (an insert's clordId, a batch's
 * clordIds): a client key in that form is taken only when it is the one the call's clordIds give, else
 * it would hold another clordId's key (a later insert of that clordId, sent without a key, was refused
 * 409 CLORDID_IN_USE for a clordId never sent).
 */
const IMPLICIT_PREFIXES = ['clordId:', 'clordIds:'];

const invalid = (message: string) => new ValidationError([{ path: 'headers.idempotency-key', message }]);

/**
 * The request's Idempotency-Key, or undefined; a malformed or repeated one is a 400 naming the header, as
 * is one in the form of the gateway's own keys that is not `implicitKey`, the key the call would get without one.
 */
export function idempotencyKeyOf(request: FastifyRequest, implicitKey?: string): string | undefined {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || headerCount(request.raw.rawHeaders, IDEMPOTENCY_KEY_HEADER) > 1)
    throw invalid('expected one Idempotency-Key header, not several');
  const value = raw.trim();
  const quoted = value.startsWith('"') ? QUOTED.exec(value) : undefined;
  if (quoted === null) throw invalid('expected a Structured Field string: a quoted key escapes " and \\ with \\');
  const text = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : value;
  if (!KEY.test(text) || text.trim() === '') throw invalid('expected one key of 1 to 255 printable ASCII characters');
  // A key is looked up as a path segment (GET /orders/key/<key>), where dot segments are refused: a key
  // that is or holds one would send an order whose outcome the caller could never read back by its key.
  if (hasDotSegment(text)) throw invalid('a key may not be or hold the dot segments . and ..');
  if (text !== implicitKey && IMPLICIT_PREFIXES.some((prefix) => text.startsWith(prefix)))
    throw invalid(
      "a key beginning clordId: or clordIds: is the gateway's own for a call sent without one: only the one this call's clordIds give is taken",
    );
  return text;
}
