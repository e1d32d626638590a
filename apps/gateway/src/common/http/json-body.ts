import { isUtf8 } from 'node:buffer';
import type { Server } from 'node:http';

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DomainError, ErrorCode } from '@lib/core';

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text nests objects and arrays deeper than `limit` (brackets inside strings do
 * not count). One pass over the characters, before JSON.parse: a 1 MiB body of 500,000 nested
 * arrays is refused at the 33rd, where parsing it would build them all and a later JSON.stringify
 * of it would overflow the stack.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/**
 * Fastify's own JSON parser (with its prototype-poisoning checks), behind a UTF-8 check (RFC 8259
 * section 8.1: JSON text exchanged between systems is UTF-8) and the nesting-depth check. Without
 * the first, a byte that is no UTF-8 was decoded as U+FFFD: two orders whose `clordId`s differed
 * only in such bytes became one `clordId`, and the second was answered as the first's replay, never
 * placed. Registered through Nest, which otherwise adds its default JSON parser at init.
 */
export function installJsonBodyParser(app: NestFastifyApplication, maxDepth: number, bodyLimit: number): void {
  const parse = app.getHttpAdapter().getInstance().getDefaultJsonParser('error', 'error');
  app.useBodyParser<Server>('application/json', { bodyLimit }, (request, body, done) => {
    if (!isUtf8(body))
      return done(
        new DomainError(ErrorCode.MALFORMED_REQUEST, 'The body is not valid UTF-8 (RFC 8259 section 8.1).'),
        undefined,
      );
    const text = body.toString('utf8');
    if (nestsDeeperThan(text, maxDepth))
      done(
        new DomainError(ErrorCode.MALFORMED_REQUEST, `The JSON body nests deeper than ${maxDepth} levels.`),
        undefined,
      );
    else parse(request, text, done);
  });
}
