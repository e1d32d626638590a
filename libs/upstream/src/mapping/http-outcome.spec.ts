import { ErrorCode, httpStatusOf } from '@lib/core';

import { jsonOrUndefined, upstreamError, upstreamThrottleOf } from './http-outcome.js';
import { upstreamTransportError } from './transport-outcome.js';

describe('upstreamError', () => {
  it.each([
    [400, 400],
    [403, 403],
    [404, 404],
    [409, 409],
    [413, 413],
    [422, 422],
    [429, 429],
    [500, 502],
    [502, 502],
    [503, 503],
    [504, 504],
  ])('keeps the meaning of upstream %i as %i', (upstream, gateway) => {
    expect(httpStatusOf(upstreamError('exchange', { status: upstream, body: {} }).code)).toBe(gateway);
  });

  it('keeps the upstream body and carries Retry-After on 429', () => {
    const sut = upstreamError('exchange', {
      status: 429,
      body: { code: 8, message: 'rate limit exceeded', details: [] },
      retryAfter: '2',
    });
    expect(sut.code).toBe(ErrorCode.UPSTREAM_RATE_LIMITED);
    expect(sut.headers['Retry-After']).toBe('2');
    expect(sut.extensions.upstream).toEqual({
      status: 429,
      body: { code: 8, message: 'rate limit exceeded', details: [] },
    });
    expect(sut.detail).toContain('rate limit exceeded');
  });

  it.each([
    ['0', '1'],
    ['007', '7'],
    ['soon', '1'],
    [undefined, '1'],
  ])('tells the client Retry-After %s of the upstream as %s: whole seconds, at least 1', (upstream, client) => {
    expect(upstreamError('retail', { status: 429, body: {}, retryAfter: upstream }).headers['Retry-After']).toBe(
      client,
    );
  });

  it('keeps a 503 with the upstream Retry-After, and says a 504 may have been processed', () => {
    expect(upstreamError('retail', { status: 503, body: {}, retryAfter: '4' }).headers['Retry-After']).toBe('4');
    const timeout = upstreamError('exchange', { status: 504, body: {} }, { clordId: 'c-9' });
    expect(timeout.detail).toContain('may have been processed');
    expect(timeout.extensions.clordId).toBe('c-9');
  });

  it.each([429, 400])(
    'calls "Global Rate Limit Exceeded" (status %i) ORDER_REJECTED_LATENCY: 503, retryable, not processed, no Retry-After',
    (status) => {
      const sut = upstreamError(
        'exchange',
        { status, body: { code: 8, message: 'Global Rate Limit Exceeded', details: [] } },
        { clordId: 'c-2' },
      );
      expect(sut.code).toBe(ErrorCode.ORDER_REJECTED_LATENCY);
      expect(httpStatusOf(sut.code)).toBe(503);
      expect(sut.extensions).toMatchObject({ retryable: true, processed: false, clordId: 'c-2' });
      expect(sut.headers['Retry-After']).toBeUndefined();
    },
  );

  it('calls a 403 UPSTREAM_FORBIDDEN', () => {
    expect(upstreamError('exchange', { status: 403, body: { code: 7 } }).code).toBe(ErrorCode.UPSTREAM_FORBIDDEN);
  });
});

describe('upstreamTransportError', () => {
  it('is a 504 on timeout, carrying extensions such as the clordId', () => {
    const sut = upstreamTransportError('exchange', Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), {
      clordId: 'c-1',
    });
    expect(httpStatusOf(sut.code)).toBe(504);
    expect(sut.extensions.clordId).toBe('c-1');
  });

  it('is a 503 when the connection was refused', () => {
    expect(
      httpStatusOf(upstreamTransportError('retail', Object.assign(new Error('r'), { code: 'ECONNREFUSED' })).code),
    ).toBe(503);
  });
});

describe(upstreamThrottleOf.name, () => {
  const now = Date.parse('2026-11-02T10:00:00Z');

  it('cools only the class that got the 429, for its Retry-After', () => {
    expect(upstreamThrottleOf({ status: 429, retryAfter: '3' }, 'read', now)).toEqual({
      seconds: 3,
      classes: ['read'],
    });
    expect(upstreamThrottleOf({ status: 429, retryAfter: '3' }, 'cancel', now)).toEqual({
      seconds: 3,
      classes: ['cancel'],
    });
    expect(
      upstreamThrottleOf({ status: 429, retryAfter: 'Mon, 02 Nov 2026 10:00:05 GMT' }, 'write', now)?.seconds,
    ).toBe(5);
    expect(upstreamThrottleOf({ status: 429 }, 'write', now, 2)?.seconds).toBe(2);
  });

  it('cools nothing on "Global Rate Limit Exceeded", whatever its status (upstream-facts: not a rate limit)', () => {
    expect(upstreamThrottleOf({ status: 429, message: 'Global Rate Limit Exceeded' }, 'write', now)).toBeUndefined();
    expect(upstreamThrottleOf({ status: 400, message: 'global rate limit exceeded' }, 'write', now)).toBeUndefined();
  });

  it('ignores other answers and unreadable Retry-After values', () => {
    expect(upstreamThrottleOf({ status: 503 }, 'read', now)).toBeUndefined();
    expect(upstreamThrottleOf({ status: 429, retryAfter: 'soon' }, 'read', now, 4)?.seconds).toBe(4);
  });
});

describe(jsonOrUndefined.name, () => {
  it('reads an answer as JSON, and one that is not JSON as nothing', () => {
    expect(jsonOrUndefined('{"orders":[]}')).toEqual({ orders: [] });
    expect(jsonOrUndefined('')).toBeUndefined();
    expect(jsonOrUndefined('<html>Bad Gateway</html>')).toBeUndefined();
  });
});
