import type { KeyObject } from 'node:crypto';

import { type CompactJwt, parseCompactJwt, verifyRs256 } from './compact-jwt.js';

export type AssertionRejection =
  | 'malformed'
  | 'wrong_alg'
  | 'bad_signature'
  | 'missing_claim'
  | 'invalid_claim'
  | 'iss_sub_mismatch'
  | 'wrong_aud'
  | 'iat_in_future'
  | 'expired'
  | 'bad_lifetime';

export interface AssertionExpectations {
  clientId: string;
  publicKeys: readonly KeyObject[];
  /** `<auth base>/oauth/token`: the assertion's audience is the token URL, not the API (spec §5.1). */
  tokenUrl: string;
  nowMs: number;
}

export type AssertionVerdict =
  | { ok: true; jti: string; key: KeyObject }
  | {
      ok: false;
      error: 'invalid_client' | 'invalid_client_assertion';
      reason: AssertionRejection;
      description: string;
    };

type Rejected = Extract<AssertionVerdict, { ok: false }>;

interface AssertionClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  jti: string;
}

/** Tolerated clock difference for `iat` only; `exp` is checked strictly against the sandbox clock. */
export const IAT_LEEWAY_SECONDS = 5;
/** spec §8: a client assertion lives at most 5 minutes from `iat`. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
const REQUIRED_CLAIMS = ['iss', 'sub', 'aud', 'iat', 'exp', 'jti'] as const;

/**
 * Checks a private-key JWT client assertion (spec §5.1, §7; RFC 7523). Only a signature that fails
 * against every registered key is `invalid_client`; everything else wrong is `invalid_client_assertion`.
 * Replay of `jti` is left to the caller, which owns the memory of seen ids.
 */
export function verifyClientAssertion(assertion: string, expected: AssertionExpectations): AssertionVerdict {
  const jwt = parseCompactJwt(assertion);
  if (!jwt) return reject('malformed', 'client_assertion is not a well-formed signed JWT');
  if (jwt.header.alg !== 'RS256')
    return reject('wrong_alg', `client_assertion must be signed with RS256, not ${String(jwt.header.alg)}`);
  const key = expected.publicKeys.find((candidate) => verifyRs256(jwt, candidate));
  if (!key) {
    const description = 'client_assertion signature does not verify against any key registered for this client';
    return { ok: false, error: 'invalid_client', reason: 'bad_signature', description };
  }
  const claims = readClaims(jwt);
  if ('ok' in claims) return claims;
  return checkClaims(claims, expected) ?? { ok: true, jti: claims.jti, key };
}

function readClaims({ payload }: CompactJwt): AssertionClaims | Rejected {
  const absent = REQUIRED_CLAIMS.find((name) => payload[name] === undefined || payload[name] === null);
  if (absent) return reject('missing_claim', `client_assertion lacks the ${absent} claim`);
  const { iss, sub, aud, iat, exp, jti } = payload;
  if (typeof iss !== 'string' || typeof sub !== 'string') return reject('invalid_claim', 'iss and sub must be strings');
  const audOk = typeof aud === 'string' || (Array.isArray(aud) && aud.every((entry) => typeof entry === 'string'));
  if (!audOk) return reject('invalid_claim', 'aud must be a string or an array of strings');
  if (!isNumericDate(iat) || !isNumericDate(exp))
    return reject('invalid_claim', 'iat and exp must be Unix times in seconds');
  if (typeof jti !== 'string' || jti.length === 0) return reject('invalid_claim', 'jti must be a non-empty string');
  return { iss, sub, aud: aud as string | string[], iat, exp, jti };
}

function checkClaims(claims: AssertionClaims, expected: AssertionExpectations): Rejected | undefined {
  const nowSeconds = expected.nowMs / 1000;
  if (claims.iss !== expected.clientId || claims.sub !== expected.clientId) {
    return reject('iss_sub_mismatch', 'iss and sub must both be the client id');
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(expected.tokenUrl))
    return reject('wrong_aud', `aud must be the token URL ${expected.tokenUrl}`);
  if (claims.iat > nowSeconds + IAT_LEEWAY_SECONDS) return reject('iat_in_future', 'iat is in the future');
  if (claims.exp <= nowSeconds) return reject('expired', 'client_assertion has expired');
  if (claims.exp <= claims.iat || claims.exp - claims.iat > MAX_ASSERTION_LIFETIME_SECONDS) {
    return reject('bad_lifetime', `exp must be after iat and at most ${MAX_ASSERTION_LIFETIME_SECONDS} s after it`);
  }
  return undefined;
}

function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function reject(reason: AssertionRejection, description: string): Rejected {
  return { ok: false, error: 'invalid_client_assertion', reason, description };
}
