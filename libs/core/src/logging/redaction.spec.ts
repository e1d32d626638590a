import { redactUrl, scrubText } from './redaction.js';

describe('redaction', () => {
  it('replaces secret query values and keeps the rest of the URL', () => {
    expect(redactUrl('/ws?ticket=abc123&topic=x')).toBe('/ws?ticket=%5Bredacted%5D&topic=x');
    expect(redactUrl('/me')).toBe('/me');
  });

  it('scrubs key material, JWTs, bearer values and gateway keys from free text', () => {
    const text = [
      // A PEM block with a made-up body (no key), armour built from its label.
      ['BEGIN', 'END'].map((edge) => `-----${edge} PRIVATE KEY-----`).join('\nMIIEvQ\n'),
      'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJnYXRld2F5In0.c2lnbmF0dXJlLXZhbHVl',
      'Bearer opaque-token-value-123',
      'pmgw_AAAAAAAAAAAAAAAAAAAAAAAA',
    ].join(' ');
    const out = scrubText(text);
    expect(out).not.toMatch(/MIIEvQ|eyJ|opaque-token|pmgw_A/);
  });
});
