import { TokenRefusal } from './token-refusal.error.js';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface TokenRequest {
  clientId: string;
  clientAssertion: string;
}

const REQUIRED_FIELDS = ['client_id', 'client_assertion_type', 'client_assertion', 'audience'] as const;

/**
 * The body checks of spec §5.1 step 2. Unknown fields are ignored, as RFC 6749 §3.2 requires of a
 * token endpoint; `audience` must name this sandbox's exchange API, not the token URL.
 */
export function parseTokenRequest(contentType: string | undefined, body: unknown, exchangeUrl: string): TokenRequest {
  if (contentType?.split(';')[0].trim().toLowerCase() !== 'application/json') {
    throw new TokenRefusal('bad_content_type', 'invalid_request', 'content-type must be application/json');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TokenRefusal('bad_body', 'invalid_request', 'the body must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  const text = (name: string): string | undefined => {
    const value = fields[name];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  const grantType = text('grant_type');
  if (grantType === undefined) throw new TokenRefusal('missing_field', 'invalid_request', 'grant_type is required');
  if (grantType !== 'client_credentials') {
    throw new TokenRefusal('wrong_grant_type', 'unsupported_grant_type', 'grant_type must be client_credentials');
  }
  const absent = REQUIRED_FIELDS.find((name) => text(name) === undefined);
  if (absent) throw new TokenRefusal('missing_field', 'invalid_request', `${absent} is required and must be a string`);
  if (text('client_assertion_type') !== CLIENT_ASSERTION_TYPE) {
    throw new TokenRefusal(
      'wrong_assertion_type',
      'invalid_request',
      `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`,
    );
  }
  if (text('audience') !== exchangeUrl) {
    throw new TokenRefusal(
      'wrong_audience',
      'invalid_request',
      `audience must be the exchange API address ${exchangeUrl}`,
    );
  }
  return { clientId: text('client_id') as string, clientAssertion: text('client_assertion') as string };
}
