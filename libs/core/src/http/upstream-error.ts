import { systemClock } from '../clock/clock.js';
import { DomainError } from '../errors/domain.error.js';
import { ErrorCode } from '../errors/error-code.js';
import { retryAfterOf } from './retry-after.js';
import type { JsonReply } from './upstream-http.service.js';

/** What the gateway keeps of a failed upstream answer: the status and the body, parsed when it is JSON. */
export interface UpstreamFailure {
  status: number;
  body: unknown;
  retryAfter?: string;
}

const BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.UPSTREAM_BAD_REQUEST,
  401: ErrorCode.UPSTREAM_UNAUTHORIZED,
  403: ErrorCode.UPSTREAM_FORBIDDEN,
  404: ErrorCode.UPSTREAM_NOT_FOUND,
  409: ErrorCode.UPSTREAM_CONFLICT,
  413: ErrorCode.UPSTREAM_PAYLOAD_TOO_LARGE,
  422: ErrorCode.UPSTREAM_UNPROCESSABLE,
  429: ErrorCode.UPSTREAM_RATE_LIMITED,
  503: ErrorCode.UPSTREAM_UNAVAILABLE,
  504: ErrorCode.UPSTREAM_TIMEOUT,
};

/** Codes whose answer passes the upstream's Retry-After on (a 429 or 503 says when to come back). */
const KEEPS_RETRY_AFTER: ReadonlySet<ErrorCode> = new Set([ErrorCode.UPSTREAM_RATE_LIMITED, ErrorCode.UPSTREAM_UNAVAILABLE]);

/**
 * The exchange's latency stopgap (upstream-facts, operator's rules): an order not processed within 5 s
 * is rejected with this message. Not a rate limit: the one order was refused unprocessed.
 */
export function isLatencyReject(message: string | undefined): boolean {
  return message !== undefined && /global rate limit exceeded/i.test(message);
}

/**
 * An upstream error answer as a problem: 4xx keep their meaning, a 503 stays 503 (with the upstream's
 * Retry-After) and a 504 stays 504 ("may have been processed"), other 5xx become 502; the upstream body
 * is kept under `upstream` so nothing the client needs is lost. "Global Rate Limit Exceeded" becomes
 * ORDER_REJECTED_LATENCY (503, `retryable`): the order was refused unprocessed, whatever the status.
 */
export function upstreamError(surface: string, failure: UpstreamFailure, extensions: Record<string, unknown> = {}): DomainError {
  const message = messageOf(failure.body);
  const upstream = { upstream: { status: failure.status, body: failure.body } };
  if (isLatencyReject(message)) {
    const detail = `The ${surface} upstream rejected the order unprocessed (latency guard: ${message}); it is safe to send it again.`;
    return new DomainError(ErrorCode.ORDER_REJECTED_LATENCY, detail, { extensions: { ...extensions, retryable: true, processed: false, ...upstream } });
  }
  const code = BY_STATUS[failure.status] ?? (failure.status >= 500 ? ErrorCode.UPSTREAM_ERROR : ErrorCode.UPSTREAM_BAD_REQUEST);
  const meaning = code === ErrorCode.UPSTREAM_TIMEOUT ? ' The request may have been processed.' : '';
  const detail = `The ${surface} upstream answered ${failure.status}${message ? `: ${message}` : '.'}${meaning}`;
  const headers: Record<string, string> = {};
  if (KEEPS_RETRY_AFTER.has(code)) headers['Retry-After'] = normaliseRetryAfter(failure.retryAfter);
  return new DomainError(code, detail, { headers, extensions: { ...extensions, ...upstream } });
}

/** Timeouts and connection failures: the request may or may not have been processed (504) or never arrived (503). */
export function upstreamTransportError(surface: string, error: unknown, extensions: Record<string, unknown> = {}): DomainError {
  const code = (error as { code?: unknown }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (error as Error).name === 'TimeoutError') {
    return new DomainError(ErrorCode.UPSTREAM_TIMEOUT, `The ${surface} upstream did not answer in time; the request may have been processed.`, { extensions, cause: error });
  }
  if (code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ENOTFOUND') {
    return new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, `The ${surface} upstream cannot be reached; the request was not sent.`, { extensions, cause: error });
  }
  return new DomainError(ErrorCode.UPSTREAM_ERROR, `The connection to the ${surface} upstream failed; the request may have been processed.`, { extensions, cause: error });
}

/** Passes a successful answer through; turns an error answer into its problem (see `upstreamError`). */
export function okOrThrow(surface: string, reply: JsonReply, extensions: Record<string, unknown> = {}): JsonReply {
  if (reply.status < 400) return reply;
  const retryAfter = reply.headers['retry-after'];
  throw upstreamError(surface, { status: reply.status, body: parseBody(reply.text), retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined }, extensions);
}

export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 2_000);
  }
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
