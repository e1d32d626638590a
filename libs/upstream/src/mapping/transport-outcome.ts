import { DomainError, ErrorCode } from '@lib/core';

/** What a failed connection means: whether the request may have reached the upstream. */
export type TransportOutcome = 'timeout' | 'unreachable' | 'failed';

/** Per outcome: the code, and what the client is told of the request's fate. */
export const TRANSPORT_OUTCOMES: Readonly<
  Record<TransportOutcome, { code: ErrorCode; detail: (surface: string) => string }>
> = {
  timeout: {
    code: ErrorCode.UPSTREAM_TIMEOUT,
    detail: (surface) => `The ${surface} upstream did not answer in time; the request may have been processed.`,
  },
  unreachable: {
    code: ErrorCode.UPSTREAM_UNAVAILABLE,
    detail: (surface) => `The ${surface} upstream cannot be reached; the request was not sent.`,
  },
  failed: {
    code: ErrorCode.UPSTREAM_ERROR,
    detail: (surface) => `The connection to the ${surface} upstream failed; the request may have been processed.`,
  },
};

/**
 * The transport table, by the error's `code` (undici and Node): a timeout after the send may have been
 * processed (504), a connection never made was never sent (503); anything else, a reset included, is
 * a failed connection that may have been processed (502).
 */
export const TRANSPORT_BY_ERROR_CODE: Readonly<Record<string, TransportOutcome>> = {
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNREFUSED: 'unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'unreachable',
  ENOTFOUND: 'unreachable',
};

/** By the error's `name`, for errors without a code of their own (AbortSignal.timeout's DOMException). */
export const TRANSPORT_BY_ERROR_NAME: Readonly<Record<string, TransportOutcome>> = {
  TimeoutError: 'timeout',
};

/** The outcome of a failed send: a timeout by either column wins, else the code's row, else `failed`. */
export function transportOutcomeOf(error: unknown): TransportOutcome {
  const code = (error as { code?: unknown }).code;
  const name = (error as { name?: unknown }).name;
  const byCode = typeof code === 'string' ? TRANSPORT_BY_ERROR_CODE[code] : undefined;
  const byName = typeof name === 'string' ? TRANSPORT_BY_ERROR_NAME[name] : undefined;
  if (byCode === 'timeout' || byName === 'timeout') return 'timeout';
  return byCode ?? byName ?? 'failed';
}

/** Timeouts and connection failures as the problem the client gets (see the transport table). */
export function upstreamTransportError(
  surface: string,
  error: unknown,
  extensions: Record<string, unknown> = {},
): DomainError {
  const outcome = TRANSPORT_OUTCOMES[transportOutcomeOf(error)];
  return new DomainError(outcome.code, outcome.detail(surface), { extensions, cause: error });
}
