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
  switch (status) {
    case 400:
      return new DomainError(ErrorCode.MALFORMED_REQUEST, safeFrameworkMessage(error, 'The request could not be parsed.'));
    case 404:
      return new DomainError(ErrorCode.NOT_FOUND, 'No such route.');
    case 405:
      return new DomainError(ErrorCode.METHOD_NOT_ALLOWED, 'Method not allowed on this route.');
    case 413:
      return new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is larger than the gateway accepts.');
    case 415:
      return new DomainError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Send application/json.');
    default:
      return new DomainError(ErrorCode.INTERNAL, 'An internal error occurred. Quote the request id when reporting it.', { cause: error });
  }
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { statusCode?: unknown; status?: unknown; getStatus?: () => number };
  if (typeof candidate.getStatus === 'function') return candidate.getStatus();
  if (typeof candidate.statusCode === 'number') return candidate.statusCode;
  if (typeof candidate.status === 'number') return candidate.status;
  return undefined;
}

/** Fastify's parser messages describe the client's input (e.g. "Unexpected token } in JSON"); keep only those. */
function safeFrameworkMessage(error: unknown, fallback: string): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP')) return (error as Error).message;
  if (error instanceof SyntaxError) return `Body is not valid JSON: ${error.message}`;
  return fallback;
}
