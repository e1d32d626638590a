import type { Decision } from '../budget/decision.js';
import { rateLimitedError, rateLimitHeaders } from './rate-limit-headers.js';

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
    expect(error.extensions).toMatchObject({
      bucket: 'retail.all',
      team: 'desk',
      limitedBy: 'team-share',
      retryAfterMs: 1_250,
    });
  });
});
