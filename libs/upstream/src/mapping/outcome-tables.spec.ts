import { status as GrpcStatus } from '@grpc/grpc-js';
import { ErrorCode, httpStatusOf, problemOf } from '@lib/core';

import { GRPC_STATUS_TABLE, grpcStatusError } from './grpc-outcome.js';
import { HTTP_STATUS_TABLE, okOrThrow, throttleOfReply, unusableAnswer, upstreamError } from './http-outcome.js';
import { TRANSPORT_BY_ERROR_CODE, TRANSPORT_BY_ERROR_NAME, upstreamTransportError } from './transport-outcome.js';

// What the code before the tables produced (0806dd4: libs/core/src/http/upstream-error.ts BY_STATUS and
// its fallbacks, libs/exchange/src/grpc/stream-status.error.ts ERROR_CODES, upstreamTransportError's
// branches), written out row by row: each row of each table must still give the same code and body.
const OLD_HTTP: Record<number, ErrorCode> = {
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
const oldHttpCode = (status: number) =>
  OLD_HTTP[status] ?? (status >= 500 ? ErrorCode.UPSTREAM_ERROR : ErrorCode.UPSTREAM_BAD_REQUEST);

const OLD_GRPC: Partial<Record<GrpcStatus, ErrorCode>> = {
  [GrpcStatus.INVALID_ARGUMENT]: ErrorCode.UPSTREAM_BAD_REQUEST,
  [GrpcStatus.OUT_OF_RANGE]: ErrorCode.UPSTREAM_BAD_REQUEST,
  [GrpcStatus.FAILED_PRECONDITION]: ErrorCode.UPSTREAM_BAD_REQUEST,
  [GrpcStatus.UNAUTHENTICATED]: ErrorCode.UPSTREAM_UNAUTHORIZED,
  [GrpcStatus.PERMISSION_DENIED]: ErrorCode.UPSTREAM_FORBIDDEN,
  [GrpcStatus.NOT_FOUND]: ErrorCode.UPSTREAM_NOT_FOUND,
  [GrpcStatus.RESOURCE_EXHAUSTED]: ErrorCode.UPSTREAM_RATE_LIMITED,
  [GrpcStatus.DEADLINE_EXCEEDED]: ErrorCode.UPSTREAM_TIMEOUT,
  [GrpcStatus.UNAVAILABLE]: ErrorCode.UPSTREAM_UNAVAILABLE,
};

const reply = (status: number, text = '{"message":"no"}', headers: Record<string, string> = {}) => ({
  status,
  text,
  headers,
  sentAt: 0,
  receivedAt: 0,
});

describe('HTTP_STATUS_TABLE', () => {
  it('lists exactly the statuses the old mapper named', () => {
    expect(Object.keys(HTTP_STATUS_TABLE).map(Number).sort()).toEqual(Object.keys(OLD_HTTP).map(Number).sort());
  });

  // Every error status an upstream can send, the table's rows and the fallbacks alike.
  const statuses = Array.from({ length: 200 }, (_, i) => 400 + i);
  it.each(statuses)('maps upstream %i to the code, problem body and headers the old mapper gave', (status) => {
    const sut = upstreamError('retail', { status, body: { message: 'no' }, retryAfter: '3' }, { clordId: 'c-1' });
    const code = oldHttpCode(status);
    expect(sut.code).toBe(code);
    const meaning = code === ErrorCode.UPSTREAM_TIMEOUT ? ' The request may have been processed.' : '';
    const keepsRetryAfter = code === ErrorCode.UPSTREAM_RATE_LIMITED || code === ErrorCode.UPSTREAM_UNAVAILABLE;
    expect(sut.headers).toEqual(keepsRetryAfter ? { 'Retry-After': '3' } : {});
    expect(problemOf(sut, 'r-1')).toEqual({
      clordId: 'c-1',
      upstream: { status, body: { message: 'no' } },
      type: `https://gateway.internal/problems/${code.toLowerCase().replaceAll('_', '-')}`,
      title: expect.any(String),
      status: httpStatusOf(code),
      detail: `The retail upstream answered ${status}: no${meaning}`,
      code,
      requestId: 'r-1',
    });
  });

  it('reads the latency reject over any status: ORDER_REJECTED_LATENCY, retryable, not processed', () => {
    for (const status of [400, 429, 503]) {
      const sut = upstreamError('exchange', { status, body: { message: 'Global Rate Limit Exceeded' } });
      expect(sut.code).toBe(ErrorCode.ORDER_REJECTED_LATENCY);
      expect(sut.detail).toBe(
        'The exchange upstream rejected the order unprocessed (latency guard: Global Rate Limit Exceeded); it is safe to send it again.',
      );
      expect(sut.extensions).toEqual({
        retryable: true,
        processed: false,
        upstream: { status, body: { message: 'Global Rate Limit Exceeded' } },
      });
    }
  });

  it('passes an answer below 400 through, and cools the class of a 429 only', () => {
    expect(okOrThrow('exchange', reply(204, ''))).toEqual(reply(204, ''));
    expect(() => okOrThrow('exchange', reply(302, ''))).not.toThrow();
    const cooling = statuses.filter(
      (status) => throttleOfReply(reply(status, '{}', { 'retry-after': '2' }), 'write', 0) !== undefined,
    );
    expect(cooling).toEqual([429]);
    expect(throttleOfReply(reply(429, '{"message":"Global Rate Limit Exceeded"}'), 'write', 0)).toBeUndefined();
  });

  it('reads an unusable success (a redirect) as the upstream 502 the catalog answered before', () => {
    const sut = unusableAnswer('catalog', reply(302, '<html>'));
    expect(sut.code).toBe(ErrorCode.UPSTREAM_ERROR);
    expect(sut.detail).toBe('The catalog upstream answered 502.');
    expect(sut.extensions).toEqual({ upstream: { status: 502, body: '<html>' } });
  });
});

describe('GRPC_STATUS_TABLE', () => {
  const all = Object.values(GrpcStatus).filter((value): value is GrpcStatus => typeof value === 'number');

  it('lists exactly the statuses the exchange streams named', () => {
    expect(GRPC_STATUS_TABLE).toEqual(OLD_GRPC);
  });

  it.each(all.map((code) => [GrpcStatus[code], code] as const))(
    'maps %s to the code and problem the old stream refusal gave',
    (name, code) => {
      const sut = grpcStatusError(
        'exchange order stream',
        { code, details: 'gone' },
        { upstream: { stream: 'orders', grpcStatus: name, details: 'gone' } },
      );
      const expected = OLD_GRPC[code] ?? ErrorCode.UPSTREAM_ERROR;
      expect(sut.code).toBe(expected);
      expect(sut.detail).toBe(`The exchange order stream ended with ${name}: gone`);
      expect(sut.headers).toEqual(expected === ErrorCode.UPSTREAM_RATE_LIMITED ? { 'Retry-After': '1' } : {});
      expect(sut.extensions).toEqual({ upstream: { stream: 'orders', grpcStatus: name, details: 'gone' } });
    },
  );
});

describe('the transport table', () => {
  const error = (fields: { code?: string; name?: string }) => Object.assign(new Error('x'), fields);
  const TIMEOUT = {
    code: ErrorCode.UPSTREAM_TIMEOUT,
    detail: 'The exchange upstream did not answer in time; the request may have been processed.',
  };
  const UNREACHABLE = {
    code: ErrorCode.UPSTREAM_UNAVAILABLE,
    detail: 'The exchange upstream cannot be reached; the request was not sent.',
  };
  const FAILED = {
    code: ErrorCode.UPSTREAM_ERROR,
    detail: 'The connection to the exchange upstream failed; the request may have been processed.',
  };

  it.each([
    [{ code: 'UND_ERR_HEADERS_TIMEOUT' }, TIMEOUT],
    [{ code: 'UND_ERR_BODY_TIMEOUT' }, TIMEOUT],
    [{ name: 'TimeoutError' }, TIMEOUT],
    [{ name: 'TimeoutError', code: 'ECONNREFUSED' }, TIMEOUT],
    [{ code: 'ECONNREFUSED' }, UNREACHABLE],
    [{ code: 'UND_ERR_CONNECT_TIMEOUT' }, UNREACHABLE],
    [{ code: 'ENOTFOUND' }, UNREACHABLE],
    [{ code: 'ECONNRESET' }, FAILED],
    [{ code: 'UND_ERR_SOCKET' }, FAILED],
    [{ code: 'EPIPE' }, FAILED],
    [{ code: 'TimeoutError' }, FAILED],
    [{}, FAILED],
  ])('reads %j as the old mapper did', (fields, expected) => {
    const cause = error(fields);
    const sut = upstreamTransportError('exchange', cause, { clordId: 'c-3' });
    expect({ code: sut.code, detail: sut.detail }).toEqual(expected);
    expect(sut.extensions).toEqual({ clordId: 'c-3' });
    expect(sut.cause).toBe(cause);
  });

  it('has a row for every cause the walk above names, and no other', () => {
    expect(Object.keys(TRANSPORT_BY_ERROR_CODE).sort()).toEqual([
      'ECONNREFUSED',
      'ENOTFOUND',
      'UND_ERR_BODY_TIMEOUT',
      'UND_ERR_CONNECT_TIMEOUT',
      'UND_ERR_HEADERS_TIMEOUT',
    ]);
    expect(Object.keys(TRANSPORT_BY_ERROR_NAME)).toEqual(['TimeoutError']);
  });
});
