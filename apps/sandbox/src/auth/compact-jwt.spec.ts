import { generateKeyPairSync } from 'node:crypto';

import { parseCompactJwt, signRs256, verifyRs256 } from './compact-jwt.js';

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('compact JWT', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  it('round-trips an RS256 token signed here', () => {
    const sut = parseCompactJwt(signRs256({ typ: 'JWT' }, { sub: 'desk' }, privateKey));
    expect(sut?.header).toEqual({ typ: 'JWT', alg: 'RS256' });
    expect(sut?.payload).toEqual({ sub: 'desk' });
    expect(sut && verifyRs256(sut, publicKey)).toBe(true);
  });

  it('fails verification once the payload is changed', () => {
    const [header, , signature] = signRs256({}, { sub: 'desk' }, privateKey).split('.');
    const sut = parseCompactJwt(`${header}.${encode({ sub: 'admin' })}.${signature}`);
    expect(sut && verifyRs256(sut, publicKey)).toBe(false);
  });

  it('fails verification against a key that is not RSA', () => {
    const sut = parseCompactJwt(signRs256({}, { sub: 'desk' }, privateKey));
    expect(sut && verifyRs256(sut, generateKeyPairSync('ed25519').publicKey)).toBe(false);
  });

  it('parses an unsigned token so its algorithm can be refused', () => {
    expect(parseCompactJwt(`${encode({ alg: 'none' })}.${encode({})}.`)?.signature).toHaveLength(0);
  });

  it.each([
    ['two parts', `${encode({})}.${encode({})}`],
    ['four parts', `${encode({})}.${encode({})}.c2ln.c2ln`],
    ['padding', `${encode({})}=.${encode({})}.c2ln`],
    ['an impossible base64url length', `${encode({})}.${encode({})}.abcde`],
    ['a header that is not JSON', `${Buffer.from('alg').toString('base64url')}.${encode({})}.c2ln`],
    ['a payload that is an array', `${encode({})}.${encode([1])}.c2ln`],
    ['an empty header', `.${encode({})}.c2ln`],
  ])('refuses a token with %s', (_, token) => {
    expect(parseCompactJwt(token)).toBeUndefined();
  });
});
