import { randomUUID } from 'node:crypto';

import { type CryptoKey, SignJWT } from 'jose';

/** spec §5.1.2: the constant that names a private-key JWT client assertion. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface ClientAssertionInput {
  clientId: string;
  /** The token endpoint URL: spec §5.1 wants it as `aud`, not the API address. */
  tokenUrl: string;
  signingKey: CryptoKey;
  nowMs: number;
  lifetimeSeconds: number;
}

/** spec §5.1.1: RS256, iss = sub = client id, aud = token URL, iat now, exp ≤ iat + 300 s, jti unique. */
export function buildClientAssertion(input: ClientAssertionInput): Promise<string> {
  const iat = Math.floor(input.nowMs / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(input.clientId)
    .setSubject(input.clientId)
    .setAudience(input.tokenUrl)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.lifetimeSeconds)
    .setJti(randomUUID())
    .sign(input.signingKey);
}
