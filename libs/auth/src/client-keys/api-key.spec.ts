import { ApiKeyVerifier, generateApiKey, hashApiKey } from './api-key.js';

describe(ApiKeyVerifier.name, () => {
  const key = generateApiKey();
  const sut = new ApiKeyVerifier([{ id: 'bot', keyHash: hashApiKey(key) }]);

  it('finds the identity of a known key', () => {
    expect(sut.verify(key)?.id).toBe('bot');
  });

  it('refuses an unknown key, a near miss and junk', () => {
    expect(sut.verify(generateApiKey())).toBeUndefined();
    expect(sut.verify(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toBeUndefined();
    expect(sut.verify('')).toBeUndefined();
    expect(sut.verify('x'.repeat(1000))).toBeUndefined();
  });

  it('answers a remembered key again, and still refuses its near misses and unknown keys', () => {
    const fresh = new ApiKeyVerifier([{ id: 'a', keyHash: hashApiKey(key) }]);
    const wrong = generateApiKey();
    expect(fresh.verify(wrong)).toBeUndefined();
    expect(fresh.verify(key)?.id).toBe('a');
    expect(fresh.verify(key)?.id).toBe('a');
    expect(fresh.verify(wrong)).toBeUndefined();
    expect(fresh.verify(`${key} `)).toBeUndefined();
    expect(fresh.verify(key.toUpperCase())).toBeUndefined();
  });

  it('knows a key only once it verified, and never a bad one', () => {
    const fresh = new ApiKeyVerifier([{ id: 'a', keyHash: hashApiKey(key) }]);
    expect(fresh.known(key)).toBeUndefined();
    expect(fresh.verify(key)?.id).toBe('a');
    expect(fresh.known(key)?.id).toBe('a');
    const wrong = generateApiKey();
    expect(fresh.verify(wrong)).toBeUndefined();
    expect(fresh.known(wrong)).toBeUndefined();
  });

  it('stores hashes in the sha256:<hex> form the config schema accepts', () => {
    expect(hashApiKey('pmgw_example_key_value')).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(generateApiKey()).toMatch(/^pmgw_[A-Za-z0-9_-]{43}$/);
  });
});
