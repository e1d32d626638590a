import { DomainError, ErrorCode, type JsonReply, retryAfterOf, systemClock } from '@lib/core';
import type { CoolDownRequest, RequestClass } from '@lib/ratelimit';

/** What the gateway keeps of a failed upstream answer: the status and the body, parsed when it is JSON. */
export interface UpstreamFailure {
  status: number;
  body: unknown;
  retryAfter?: string;
}

/** What one upstream HTTP status means to the gateway's client and to the shared budget. */
export interface HttpRow {
  code: ErrorCode;
  /** The problem passes the upstream's Retry-After on (a 429 or 503 says when to come back). */
  keepsRetryAfter?: true;
  /** The problem says the request may have been processed (a 504: it timed out after the send). */
  mayHaveBeenProcessed?: true;
  /** The answer cools the route's buckets for the class that got it (spec §7: only a real 429 means slow down). */
  coolsClass?: true;
}

/**
 * The HTTP table: every upstream error status the gateway names. 4xx keep their meaning, a 503 stays
 * 503 and a 504 stays 504; a status not listed is UPSTREAM_ERROR (502) from 500 up, else UPSTREAM_BAD_REQUEST.
 */
export const HTTP_STATUS_TABLE: Readonly<Record<number, HttpRow>> = {
  400: { code: ErrorCode.UPSTREAM_BAD_REQUEST },
  401: { code: ErrorCode.UPSTREAM_UNAUTHORIZED },
  403: { code: ErrorCode.UPSTREAM_FORBIDDEN },
  404: { code: ErrorCode.UPSTREAM_NOT_FOUND },
  409: { code: ErrorCode.UPSTREAM_CONFLICT },
  413: { code: ErrorCode.UPSTREAM_PAYLOAD_TOO_LARGE },
  422: { code: ErrorCode.UPSTREAM_UNPROCESSABLE },
  429: { code: ErrorCode.UPSTREAM_RATE_LIMITED, keepsRetryAfter: true, coolsClass: true },
  503: { code: ErrorCode.UPSTREAM_UNAVAILABLE, keepsRetryAfter: true },
  504: { code: ErrorCode.UPSTREAM_TIMEOUT, mayHaveBeenProcessed: true },
};

const SERVER_ERROR: HttpRow = { code: ErrorCode.UPSTREAM_ERROR };
const CLIENT_ERROR: HttpRow = { code: ErrorCode.UPSTREAM_BAD_REQUEST };

/** The row of an error status: the table's, else the fallback of its class. */
export function httpRowOf(status: number): HttpRow {
  return HTTP_STATUS_TABLE[status] ?? (status >= 500 ? SERVER_ERROR : CLIENT_ERROR);
}

/**
 * The exchange's latency stopgap (upstream-facts, operator's rules): an order not processed within 5 s
 * is rejected with this message, whatever the status. Not a rate limit: the one order was refused
 * unprocessed, so it reads ORDER_REJECTED_LATENCY (503, `retryable`) and cools nothing.
 */
export function isLatencyReject(message: string | undefined): boolean {
  return message !== undefined && /global rate limit exceeded/i.test(message);
}

/**
 * An upstream error answer as a problem (see HTTP_STATUS_TABLE); the upstream body is kept under
 * `upstream` so nothing the client needs is lost. The latency reject overrides the status.
 */
export function upstreamError(
  surface: string,
  failure: UpstreamFailure,
  extensions: Record<string, unknown> = {},
): DomainError {
  const message = messageOf(failure.body);
  const upstream = { upstream: { status: failure.status, body: failure.body } };
  if (isLatencyReject(message)) {
    const detail = `The ${surface} upstream rejected the order unprocessed (latency guard: ${message}); it is safe to send it again.`;
    return new DomainError(ErrorCode.ORDER_REJECTED_LATENCY, detail, {
      extensions: { ...extensions, retryable: true, processed: false, ...upstream },
    });
  }
  const row = httpRowOf(failure.status);
  const meaning = row.mayHaveBeenProcessed ? ' The request may have been processed.' : '';
  const detail = `The ${surface} upstream answered ${failure.status}${message ? `: ${message}` : '.'}${meaning}`;
  const headers: Record<string, string> = {};
  if (row.keepsRetryAfter) headers['Retry-After'] = normaliseRetryAfter(failure.retryAfter);
  return new DomainError(row.code, detail, { headers, extensions: { ...extensions, ...upstream } });
}

/** Passes a successful answer through; turns an error answer into its problem (see `upstreamError`). */
export function okOrThrow(surface: string, reply: JsonReply, extensions: Record<string, unknown> = {}): JsonReply {
  if (reply.status < 400) return reply;
  throw upstreamError(
    surface,
    { status: reply.status, body: parseBody(reply.text), retryAfter: retryAfterHeader(reply) },
    extensions,
  );
}

/**
 * A success the caller cannot use (a redirect, an empty success from a JSON API, where only some
 * statuses are answers): a bad upstream, read as an upstream 502.
 */
export function unusableAnswer(surface: string, reply: JsonReply): DomainError {
  return upstreamError(surface, { status: 502, body: parseBody(reply.text) });
}

/** An upstream answer's JSON, or undefined when it is none (empty, cut short, HTML): for a schema's `safeParse`, which then fails. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 2_000);
  }
}

export interface UpstreamAnswer {
  status: number;
  /** The `Retry-After` header as received: delta-seconds or an HTTP date. */
  retryAfter?: string | null;
  /** Error message of the body, if any. */
  message?: string;
}

/**
 * Reads an upstream answer for rate-limit feedback: a row that cools (a real 429, not the latency
 * reject) cools only the class that earned it, for its Retry-After: a 429 on a read never stops a
 * create or a cancel.
 */
export function upstreamThrottleOf(
  answer: UpstreamAnswer,
  klass: RequestClass,
  nowMs: number,
  fallbackSeconds = 1,
): CoolDownRequest | undefined {
  if (answer.status < 400 || !httpRowOf(answer.status).coolsClass || isLatencyReject(answer.message)) return undefined;
  return { seconds: retryAfterOf(answer.retryAfter, nowMs) ?? fallbackSeconds, classes: [klass] };
}

/** The throttle a failed answer asks for, if any (see upstreamThrottleOf); `nowMs` is wall time (a Retry-After date is another party's clock). */
export function throttleOfReply(reply: JsonReply, klass: RequestClass, nowMs: number): CoolDownRequest | undefined {
  if (reply.status < 400) return undefined;
  const body = parseBody(reply.text);
  const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  return upstreamThrottleOf(
    {
      status: reply.status,
      retryAfter: retryAfterHeader(reply),
      message: typeof message === 'string' ? message : undefined,
    },
    klass,
    nowMs,
  );
}

function retryAfterHeader(reply: JsonReply): string | undefined {
  const retryAfter = reply.headers['retry-after'];
  return typeof retryAfter === 'string' ? retryAfter : undefined;
}

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { message, error, error_description: description } = body as Record<string, unknown>;
  const text = [message, error, description].find((v): v is string => typeof v === 'string');
  return text?.slice(0, 300);
}

function normaliseRetryAfter(value: string | undefined): string {
  return String(Math.max(1, Math.ceil(retryAfterOf(value, systemClock.wallNow()) ?? 1)));
}
