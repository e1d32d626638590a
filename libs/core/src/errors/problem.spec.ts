import { DomainError, RateLimitedError, ValidationError } from './domain.error.js';
import { ErrorCode } from './error-code.js';
import { httpStatusOf } from './http-status.js';
import { problemOf, toDomainError } from './problem.js';

describe('problem details', () => {
  it('maps every error code to an HTTP status', () => {
    for (const code of Object.values(ErrorCode)) expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400);
    expect(httpStatusOf(ErrorCode.UPSTREAM_TIMEOUT)).toBe(504);
    expect(httpStatusOf(ErrorCode.UPSTREAM_ERROR)).toBe(502);
    expect(httpStatusOf(ErrorCode.UPSTREAM_AUTH_UNAVAILABLE)).toBe(503);
  });

  it('builds an RFC 9457 body with code, request id and field errors', () => {
    const sut = problemOf(new ValidationError([{ path: 'body.price', message: 'Required' }]), 'req-1');
    expect(sut).toEqual({
      type: 'https://gateway.internal/problems/validation-failed',
      title: 'Request validation failed',
      status: 400,
      detail: expect.any(String),
      code: 'VALIDATION_FAILED',
      requestId: 'req-1',
      errors: [{ path: 'body.price', message: 'Required' }],
    });
  });

  it('keeps extension members but never lets them override the standard ones', () => {
    const error = new DomainError(ErrorCode.UPSTREAM_CONFLICT, 'dup', {
      extensions: { status: 200, upstream: { code: 6 } },
    });
    expect(problemOf(error, undefined)).toMatchObject({ status: 409, upstream: { code: 6 } });
  });

  it('gives a rate-limited error a whole-second Retry-After of at least 1', () => {
    expect(new RateLimitedError('slow down', 0.2).headers['Retry-After']).toBe('1');
    expect(new RateLimitedError('slow down', 2.1).headers['Retry-After']).toBe('3');
  });

  it('turns unknown errors into a bare 500 and framework 4xx into their meaning', () => {
    const internal = toDomainError(new Error('db password is hunter2'));
    expect(internal.code).toBe(ErrorCode.INTERNAL);
    expect(internal.detail).not.toContain('hunter2');
    expect(toDomainError({ statusCode: 413, message: 'too big' }).code).toBe(ErrorCode.PAYLOAD_TOO_LARGE);
    expect(toDomainError({ statusCode: 400, code: 'FST_ERR_CTP_EMPTY_JSON_BODY', message: 'empty' }).code).toBe(
      ErrorCode.MALFORMED_REQUEST,
    );
  });
});
