import { ErrorCode } from '../errors/error-code.js';
import { httpStatusOf } from '../errors/http-status.js';
import { upstreamError, upstreamTransportError } from './upstream-error.js';

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
    [503, 502],
  ])('keeps the meaning of upstream %i as %i', (upstream, gateway) => {
    expect(httpStatusOf(upstreamError('exchange', { status: upstream, body: {} }).code)).toBe(gateway);
  });

  it('keeps the upstream body and carries Retry-After on 429', () => {
    const sut = upstreamError('exchange', { status: 429, body: { code: 8, message: 'rate limit exceeded', details: [] }, retryAfter: '2' });
    expect(sut.code).toBe(ErrorCode.UPSTREAM_RATE_LIMITED);
    expect(sut.headers['Retry-After']).toBe('2');
    expect(sut.extensions.upstream).toEqual({ status: 429, body: { code: 8, message: 'rate limit exceeded', details: [] } });
    expect(sut.detail).toContain('rate limit exceeded');
  });

  it.each([
    ['0', '1'],
    ['007', '7'],
    ['soon', '1'],
    [undefined, '1'],
  ])('tells the client Retry-After %s of the upstream as %s: whole seconds, at least 1', (upstream, client) => {
    expect(upstreamError('retail', { status: 429, body: {}, retryAfter: upstream }).headers['Retry-After']).toBe(client);
  });

  it('calls a 403 UPSTREAM_FORBIDDEN', () => {
    expect(upstreamError('exchange', { status: 403, body: { code: 7 } }).code).toBe(ErrorCode.UPSTREAM_FORBIDDEN);
  });
});

describe('upstreamTransportError', () => {
  it('is a 504 on timeout, carrying extensions such as the clordId', () => {
    const sut = upstreamTransportError('exchange', Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), { clordId: 'c-1' });
    expect(httpStatusOf(sut.code)).toBe(504);
    expect(sut.extensions.clordId).toBe('c-1');
  });

  it('is a 503 when the connection was refused', () => {
    expect(httpStatusOf(upstreamTransportError('retail', Object.assign(new Error('r'), { code: 'ECONNREFUSED' })).code)).toBe(503);
  });
});
