import type { Decision } from '../budget/decision.js';
import { rateLimitedError, rateLimitHeaders } from './rate-limit-headers.js';
import { upstreamThrottleOf } from './upstream-feedback.js';

const refused: Decision = {
  allowed: false,
  retryAfterMs: 1_250,
  bucket: 'retail.all',
  team: 'desk',
  remaining: 0,
  limit: 900,
  windowSeconds: 10,
  limitedBy: 'team-share',
  mode: 'redis',
  readings: [
    { bucket: 'retail.orders.create', remaining: 12, limit: 396, windowSeconds: 10, resetMs: 9_700 },
    { bucket: 'retail.all', team: 'desk', remaining: 0, limit: 900, windowSeconds: 10, resetMs: 10_000 },
  ],
};

describe(rateLimitHeaders.name, () => {
  it('lists one policy per cell taken, team shares named bucket@team', () => {
    expect(rateLimitHeaders(refused)).toEqual({
      'RateLimit-Policy': '"retail.orders.create";q=396;w=10, "retail.all@desk";q=900;w=10',
      RateLimit: '"retail.orders.create";r=12;t=10, "retail.all@desk";r=0;t=10',
    });
  });

  it('turns a refusal into a 429 error with Retry-After rounded up and the limiting bucket', () => {
    const error = rateLimitedError(refused);
    expect(error.headers).toMatchObject({ 'Retry-After': '2', RateLimit: expect.stringContaining('r=0') });
    expect(error.extensions).toMatchObject({ bucket: 'retail.all', team: 'desk', limitedBy: 'team-share', retryAfterMs: 1_250 });
  });
});

describe(upstreamThrottleOf.name, () => {
  const now = Date.parse('2026-11-02T10:00:00Z');

  it('cools only the class that got the 429, for its Retry-After', () => {
    expect(upstreamThrottleOf({ status: 429, retryAfter: '3' }, 'read', now)).toEqual({ seconds: 3, classes: ['read'] });
    expect(upstreamThrottleOf({ status: 429, retryAfter: '3' }, 'cancel', now)).toEqual({ seconds: 3, classes: ['cancel'] });
    expect(upstreamThrottleOf({ status: 429, retryAfter: 'Mon, 02 Nov 2026 10:00:05 GMT' }, 'write', now)?.seconds).toBe(5);
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
