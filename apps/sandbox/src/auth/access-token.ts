import { randomUUID } from 'node:crypto';

import type { ExchangeClients, RegisteredExchangeClient } from '../shared/exchange-clients.js';
import type { SandboxAddresses } from '../shared/sandbox-addresses.js';
import type { SandboxClock } from '../shared/sandbox-clock.js';
import { parseCompactJwt, signRs256, verifyRs256 } from './compact-jwt.js';
import type { TokenAuthority } from './token-authority.js';

/** What issuing and checking an access token needs: the clock, the surfaces' addresses, the signing key and the clients. */
export interface AccessTokenParts {
  readonly clock: Pick<SandboxClock, 'now'>;
  readonly addresses: SandboxAddresses;
  readonly tokens: TokenAuthority;
  readonly exchangeClients: Pick<ExchangeClients, 'get'>;
}

/** Nest token of the auth surface's AccessTokenParts. */
export const ACCESS_TOKEN_PARTS = Symbol('ACCESS_TOKEN_PARTS');

export interface IssuedAccessToken {
  accessToken: string;
  expiresIn: number;
}

export interface AccessGrant {
  client: RegisteredExchangeClient;
  /** From the token's `scope` claim (spec §5.1.6), not re-read from the registry. */
  scopes: ReadonlySet<string>;
  expiresAtMs: number;
}

export type AccessTokenRejection =
  'malformed' | 'bad_signature' | 'foreign_token' | 'expired' | 'revoked' | 'unknown_client';

export type AccessTokenCheck =
  { ok: true; grant: AccessGrant } | { ok: false; reason: AccessTokenRejection; message: string };

/**
 * Access tokens are JWTs signed by the sandbox itself (RFC 9068 style) with the granted scopes in
 * `scope`, as spec §5.1.6 describes; a gateway that reads the claim sees what the real one would.
 */
export function issueAccessToken(parts: AccessTokenParts, client: RegisteredExchangeClient): IssuedAccessToken {
  const { clock, addresses, tokens } = parts;
  const ttl = tokens.ttlSeconds;
  const now = clock.now();
  // exp rounds up, so the token lives at least the expires_in it is announced with.
  const payload = {
    iss: addresses.urls.auth,
    sub: client.clientId,
    aud: addresses.urls.exchange,
    client_id: client.clientId,
    firm: client.firm,
    scope: client.scopes.join(' '),
    iat: Math.floor(now / 1000),
    exp: Math.ceil((now + ttl * 1000) / 1000),
    jti: randomUUID(),
    // Sandbox-private claim: bumping the epoch revokes every token issued before (fault injection).
    epoch: tokens.epoch,
  };
  return { accessToken: signRs256({ typ: 'at+jwt' }, payload, tokens.signingKey.privateKey), expiresIn: ttl };
}

/** The one access-token check of the sandbox, shared by the exchange REST surface and the gRPC server. */
export function verifyAccessToken(parts: AccessTokenParts, token: string): AccessTokenCheck {
  const { clock, addresses, tokens, exchangeClients } = parts;
  const jwt = parseCompactJwt(token);
  if (!jwt || jwt.header.alg !== 'RS256')
    return { ok: false, reason: 'malformed', message: 'access token is malformed' };
  if (!verifyRs256(jwt, tokens.signingKey.publicKey))
    return { ok: false, reason: 'bad_signature', message: 'access token is not valid' };
  const { iss, aud, sub, exp, scope, epoch } = jwt.payload;
  if (iss !== addresses.urls.auth || aud !== addresses.urls.exchange) {
    return { ok: false, reason: 'foreign_token', message: 'access token was not issued for this API' };
  }
  if (typeof exp !== 'number' || exp * 1000 <= clock.now())
    return { ok: false, reason: 'expired', message: 'access token has expired' };
  if (epoch !== tokens.epoch) return { ok: false, reason: 'revoked', message: 'access token has been revoked' };
  const client = typeof sub === 'string' ? exchangeClients.get(sub) : undefined;
  if (!client || typeof scope !== 'string')
    return { ok: false, reason: 'unknown_client', message: 'access token names no known client' };
  return { ok: true, grant: { client, scopes: new Set(scope.split(' ').filter(Boolean)), expiresAtMs: exp * 1000 } };
}
