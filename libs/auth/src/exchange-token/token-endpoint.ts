import type { UpstreamHttp } from '@lib/core';

import { CLIENT_ASSERTION_TYPE } from './client-assertion.js';

/** Bounded set of failure reasons: used as a metric label and in status(), so never free text. */
export type TokenFailureReason =
  | 'invalid_client'
  | 'invalid_client_assertion'
  | 'rejected'
  | 'server_error'
  | 'bad_response'
  | 'timeout'
  | 'network'
  | 'no_key'
  | 'signing';

export class TokenRequestError extends Error {
  /** The auth server's `Date` header, when it answered: its clock, for the next assertion's `iat`. */
  date?: string;

  constructor(
    readonly reason: TokenFailureReason,
    readonly status?: number,
  ) {
    super(
      status === undefined ? `token request failed: ${reason}` : `token request failed: ${reason} (HTTP ${status})`,
    );
    this.name = 'TokenRequestError';
  }
}

export interface TokenGrant {
  accessToken: string;
  expiresInSeconds: number;
  /** The auth server's `Date` header (see TokenRequestError.date). */
  date?: string;
}

/** The auth server's token endpoint of the running environment (spec §5.1.2-3). */
export class TokenEndpoint {
  private readonly origin: string;
  private readonly path: string;

  constructor(
    private readonly http: UpstreamHttp,
    tokenUrl: string,
    /** spec §5.1.2: the API base address the token is for. */
    private readonly audience: string,
    private readonly timeoutMs: number,
  ) {
    const url = new URL(tokenUrl);
    this.origin = url.origin;
    this.path = url.pathname;
  }

  async request(clientId: string, assertion: string): Promise<TokenGrant> {
    const body = JSON.stringify({
      client_id: clientId,
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: assertion,
      audience: this.audience,
      grant_type: 'client_credentials',
    });
    let status: number;
    let text: string;
    let date: string | undefined;
    try {
      const response = await this.http.request({
        origin: this.origin,
        path: this.path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.statusCode;
      date = typeof response.headers.date === 'string' ? response.headers.date : undefined;
      text = await response.body.text();
    } catch (error) {
      throw new TokenRequestError(isTimeout(error) ? 'timeout' : 'network');
    }
    try {
      if (status >= 200 && status < 300)
        return { ...parseGrant(text, status), ...(date === undefined ? {} : { date }) };
      throw new TokenRequestError(rejectionReason(status, text), status);
    } catch (error) {
      if (error instanceof TokenRequestError) error.date = date;
      throw error;
    }
  }
}

function parseGrant(text: string, status: number): TokenGrant {
  const body = parseObject(text);
  const accessToken = body?.access_token;
  const expiresIn = body?.expires_in;
  const tokenType = body?.token_type;
  const validType = tokenType === undefined || (typeof tokenType === 'string' && tokenType.toLowerCase() === 'bearer');
  if (
    typeof accessToken !== 'string' ||
    accessToken === '' ||
    typeof expiresIn !== 'number' ||
    !(expiresIn > 0) ||
    !validType
  )
    throw new TokenRequestError('bad_response', status);
  return { accessToken, expiresInSeconds: expiresIn };
}

/** spec §7 and upstream-facts: an OAuth body `{error}` names why the assertion was refused. */
function rejectionReason(status: number, text: string): TokenFailureReason {
  if (status >= 500) return 'server_error';
  const error = parseObject(text)?.error;
  if (error === 'invalid_client' || error === 'invalid_client_assertion') return error;
  return 'rejected';
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  const code = (error as { code?: unknown } | null)?.code;
  return (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}
