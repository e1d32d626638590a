import { SurfaceError } from '../../shared/surface-error.js';

/** upstream-facts: 429 `{code: 8, message: "rate limit exceeded", details: []}` with `Retry-After`. */
export class RateLimitedError extends SurfaceError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterMs: number) {
    super(429, 'rate limit exceeded');
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  }
}
