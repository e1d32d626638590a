import { Catch } from '@nestjs/common';

import { type ResolvedError, SurfaceErrorFilter } from '../shared/surface-error.filter.js';

/** Every error of the auth surface in the OAuth shape `{error, error_description}` (RFC 6749 §5.2). */
@Catch()
export class OAuthErrorFilter extends SurfaceErrorFilter {
  protected override resolve(error: ResolvedError): ResolvedError {
    // A body Fastify has no parser for (a form post, say) is a malformed token request: 400, not 415.
    return error.status === 415
      ? { status: 400, message: 'content-type must be application/json', code: 'invalid_request' }
      : error;
  }

  protected body({ status, message, code }: ResolvedError): object {
    return { error: code ?? oauthCodeOf(status), error_description: message };
  }
}

function oauthCodeOf(status: number): string {
  if (status === 404) return 'not_found';
  return status < 500 ? 'invalid_request' : 'server_error';
}
