import { generateKeyPairSync } from 'node:crypto';

import { type AssertionExpectations, verifyClientAssertion } from './client-assertion.verifier.js';
import { signRs256 } from './compact-jwt.js';

const TOKEN_URL = 'http://auth.test/oauth/token';
const NOW_MS = 1_800_000_000_000;
const NOW = NOW_MS / 1000;

describe(verifyClientAssertion.name, () => {
  const current = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const expected: AssertionExpectations = {
    clientId: 'desk',
    publicKeys: [current.publicKey, next.publicKey],
    tokenUrl: TOKEN_URL,
    nowMs: NOW_MS,
  };
  const claims = { iss: 'desk', sub: 'desk', aud: TOKEN_URL, iat: NOW, exp: NOW + 300, jti: 'j-1' };
  const assertion = (overrides: Record<string, unknown> = {}, key = current.privateKey): string =>
    signRs256({}, { ...claims, ...overrides }, key);

  it('accepts an assertion signed by either key of a rotation', () => {
    expect(verifyClientAssertion(assertion(), expected)).toMatchObject({
      ok: true,
      jti: 'j-1',
      key: current.publicKey,
    });
    expect(verifyClientAssertion(assertion({}, next.privateKey), expected)).toMatchObject({
      ok: true,
      key: next.publicKey,
    });
  });

  it('accepts an audience array that holds the token URL (RFC 7519 §4.1.3)', () => {
    expect(verifyClientAssertion(assertion({ aud: ['other', TOKEN_URL] }), expected).ok).toBe(true);
  });

  it('accepts iat up to 5 s ahead of the sandbox clock', () => {
    expect(verifyClientAssertion(assertion({ iat: NOW + 5, exp: NOW + 60 }), expected).ok).toBe(true);
  });

  it('answers invalid_client when no registered key verifies the signature', () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(verifyClientAssertion(assertion({}, stranger), expected)).toMatchObject({
      ok: false,
      error: 'invalid_client',
      reason: 'bad_signature',
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['iat 6 s ahead', { iat: NOW + 6, exp: NOW + 60 }, 'iat_in_future'],
    ['exp equal to now', { iat: NOW - 60, exp: NOW }, 'expired'],
    ['exp 301 s after iat', { exp: NOW + 301 }, 'bad_lifetime'],
    ['exp before iat', { iat: NOW + 2, exp: NOW + 1 }, 'bad_lifetime'],
    ['aud of the API', { aud: 'http://exchange.test' }, 'wrong_aud'],
    ['sub of another client', { sub: 'other' }, 'iss_sub_mismatch'],
    ['iat as a string', { iat: String(NOW) }, 'invalid_claim'],
    ['an empty jti', { jti: '' }, 'invalid_claim'],
    ['a null jti', { jti: null }, 'missing_claim'],
  ])('answers invalid_client_assertion for %s', (_, overrides, reason) => {
    expect(verifyClientAssertion(assertion(overrides), expected)).toMatchObject({
      ok: false,
      error: 'invalid_client_assertion',
      reason,
    });
  });
});
