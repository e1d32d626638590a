import { SurfaceError } from '../shared/surface-error.js';

export type OAuthErrorCode =
  'invalid_request' | 'unsupported_grant_type' | 'invalid_client' | 'invalid_client_assertion';

/** A refused token request; `reason` is finer than the OAuth code and only feeds the counters. */
export class TokenRefusal extends SurfaceError {
  constructor(
    readonly reason: string,
    code: OAuthErrorCode,
    description: string,
  ) {
    // RFC 6749 §5.2: malformed requests are 400; failed client authentication is 401 (upstream-facts).
    super(code === 'invalid_client' || code === 'invalid_client_assertion' ? 401 : 400, description, code);
    this.name = 'TokenRefusal';
  }
}
