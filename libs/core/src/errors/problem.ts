import { DomainError, type FieldError } from './domain.error.js';
import { ErrorCode } from './error-code.js';
import { httpStatusOf, titleOf } from './http-status.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const TYPE_BASE = 'https://gateway.internal/problems/';

/** RFC 9457 problem details with the gateway's extension members. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export function problemOf(error: DomainError, requestId: string | undefined): Problem {
  const status = httpStatusOf(error.code);
  return {
    ...error.extensions,
    type: TYPE_BASE + error.code.toLowerCase().replaceAll('_', '-'),
    title: titleOf(error.code),
    status,
    detail: error.detail,
    code: error.code,
    requestId,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/**
 * Turns anything thrown into a DomainError. Framework errors that carry a client-caused 4xx status
 * (malformed JSON, body too large, unknown route) keep their meaning; anything else is a generic 500
 * whose detail says nothing about internals.
 */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const status = statusOf(error);
  const client = status === undefined ? undefined : CLIENT_ERRORS[status];
  if (client)
    return new DomainError(client.code, status === 400 ? safeFrameworkMessage(error, client.detail) : client.detail);
  return new DomainError(ErrorCode.INTERNAL, 'An internal error occurred. Quote the request id when reporting it.', {
    cause: error,
  });
}

/** Framework and static-file statuses a client can cause, with what the problem says; nothing the client sent is echoed. */
const CLIENT_ERRORS: Record<number, { code: ErrorCode; detail: string }> = {
  400: { code: ErrorCode.MALFORMED_REQUEST, detail: 'The request could not be parsed.' },
  403: { code: ErrorCode.FORBIDDEN, detail: 'That path may not be read.' },
  404: { code: ErrorCode.NOT_FOUND, detail: 'No such route.' },
  405: { code: ErrorCode.METHOD_NOT_ALLOWED, detail: 'Method not allowed on this route.' },
  408: { code: ErrorCode.REQUEST_TIMEOUT, detail: 'The request did not arrive in time.' },
  412: {
    code: ErrorCode.PRECONDITION_FAILED,
    detail: 'A precondition header (If-Match, If-Unmodified-Since) did not hold.',
  },
  413: { code: ErrorCode.PAYLOAD_TOO_LARGE, detail: 'The request body is larger than the gateway accepts.' },
  414: {
    code: ErrorCode.URI_TOO_LONG,
    detail: 'The URL or one of its path parameters is longer than the gateway accepts.',
  },
  415: { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, detail: 'Send application/json.' },
  416: { code: ErrorCode.RANGE_NOT_SATISFIABLE, detail: 'The Range header asks for bytes the file does not have.' },
  431: { code: ErrorCode.HEADERS_TOO_LARGE, detail: 'The request headers are larger than the gateway accepts.' },
};

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { statusCode?: unknown; status?: unknown; getStatus?: () => number };
  if (typeof candidate.getStatus === 'function') return candidate.getStatus();
  if (typeof candidate.statusCode === 'number') return candidate.statusCode;
  if (typeof candidate.status === 'number') return candidate.status;
  return undefined;
}

/** The most of a client's own input an error message repeats. */
export const MAX_ECHO = 100;

/** Client input for an error message: at most MAX_ECHO characters of it. */
export function clip(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text;
}

/**
 * Fastify's parser messages describe the client's input (e.g. "Unexpected token } in JSON"); keep
 * only those, clipped, since they may quote the body. Other framework messages (a bad URL) quote the
 * whole input and say nothing the fallback does not.
 */
function safeFrameworkMessage(error: unknown, fallback: string): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP')) return clip((error as Error).message);
  if (error instanceof SyntaxError) return `Body is not valid JSON: ${clip(error.message)}`;
  return fallback;
}
