import { PROBLEM_CONTENT_TYPE } from '@lib/core';
import type { IdempotencyRecord } from '@lib/journal';
import type { FastifyReply } from 'fastify';

import { IDEMPOTENT_REPLAYED_HEADER } from './idempotency-key.js';
import type { OrderAnswer } from './order-call.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Where the client reads the outcome of one call by the key it holds (its Idempotency-Key, else the
 * gateway's: `clordId:<participant>:<clordId>`, `clordIds:…` or `gateway:<uuid>`): only that client's
 * call, of either surface. The Location of every 202.
 */
export const keyLookupPath = (key: string): string => `/orders/key/${encodeURIComponent(key)}`;

/**
 * The 202 of an order whose outcome is UNKNOWN (sent, answer lost): never a guess, never resent; the
 * gateway resolves it and the same request with the same key, or the key's lookup route (the Location),
 * reads the outcome.
 */
export function pendingAnswer(clordIds: readonly string[], key: string, replayed = false): OrderAnswer {
  const [first] = clordIds;
  const body = {
    state: 'PENDING',
    ...(clordIds.length === 0 ? {} : clordIds.length === 1 ? { clordId: first } : { clordIds }),
    idempotencyKey: key,
    detail:
      clordIds.length > 0
        ? 'The order was sent and its answer was lost (timeout, reset or upstream error). Its outcome is being resolved from the exchange by clordId: repeat the same request with the same Idempotency-Key, or read the lookup route. It will not be sent again.'
        : 'The call was sent and its answer was lost (timeout, reset or upstream error). Its outcome is being resolved from the upstream where it can be (else it stays PENDING: check the order list): repeat the same request with the same Idempotency-Key, or read the lookup route. It will not be sent again.',
  };
  // The call's own key, never its clordId: a clordId is unique per participant only, so the latest
  // insert that sent it (GET /orders/clord/{clordId}) may be the same client's or a teammate's on another
  // participant (before, that 202's Location read another participant's order as DONE while this call
  // was still PENDING: test/order-clord-location-participant.test.ts).
  const location = keyLookupPath(key);
  return {
    status: 202,
    text: JSON.stringify(body),
    headers: {
      'content-type': JSON_CONTENT_TYPE,
      'Retry-After': '1',
      location,
      ...(replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } : {}),
    },
  };
}

/** A finished call's stored answer, replayed. */
export function replayedAnswer(record: IdempotencyRecord): OrderAnswer {
  const status = record.status ?? 200;
  return {
    status,
    text: record.body ?? '{}',
    headers: {
      'content-type': status >= 400 ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE,
      [IDEMPOTENT_REPLAYED_HEADER]: 'true',
    },
  };
}

export function sendAnswer(res: FastifyReply, answer: OrderAnswer): void {
  res.status(answer.status).headers(answer.headers).send(answer.text);
}
