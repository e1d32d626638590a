import { redactUrl, scrubText } from './redaction.js';

describe('redaction', () => {
  it('replaces secret query values and keeps the rest of the URL', () => {
    expect(redactUrl('/ws?ticket=abc123&topic=x')).toBe('/ws?ticket=%5Bredacted%5D&topic=x');
    expect(redactUrl('/me')).toBe('/me');
  });

  it('leaves a query that names no secret exactly as it came', () => {
    expect(redactUrl('/v1/events?limit=5&tagIds=1&tagIds=2&tokenized=x&my_ticket=1')).toBe(
      '/v1/events?limit=5&tagIds=1&tagIds=2&tokenized=x&my_ticket=1',
    );
  });

  it.each([
    ['/x?TOKEN=abc', '/x?TOKEN=%5Bredacted%5D'],
    ['/x?a=1&Access_Token=abc', '/x?a=1&Access_Token=%5Bredacted%5D'],
    ['/x?access%5Ftoken=abc', '/x?access_token=%5Bredacted%5D'],
    ['/x?api+key=1&apikey=abc', '/x?api+key=1&apikey=%5Bredacted%5D'],
    ['/x?secret&b=2', '/x?secret=%5Bredacted%5D&b=2'],
  ])('redacts %s however the name is spelled or escaped', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
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

  it.each([
    ['a gateway key as a path segment', '/me/pmgw_q3K9vL2mX8nB4cT7wY1zA6sD0fG5hJ2kL9pQ4rS7uV0', '/me/[redacted]'],
    [
      'a gateway key in a query of any name',
      '/me?key=pmgw_q3K9vL2mX8nB4cT7wY1zA6sD0fG5hJ2kL9pQ4rS7uV0&x=1',
      '/me?key=[redacted]&x=1',
    ],
    ['an escaped bearer value', '/me?auth=Bearer%20opaque-token-value-123', '/me?auth=[redacted]'],
    ['a padded base64 signature', `/v1/x?sig=${'Ab3+'.repeat(21)}Ab==`, '/v1/x?sig=[redacted]'],
    [
      'a percent-encoded signature',
      `/v1/x?sig=${encodeURIComponent(`${'Ab3+'.repeat(21)}Ab==`)}&y=2`,
      '/v1/x?sig=[redacted]&y=2',
    ],
    ['an unpadded base64url secret', '/v1/x/q3K9vL2mX8nB4cT7wY1zA6sD0fG5hJ2kL9pQ4rS7uV0', '/v1/x/[redacted]'],
  ])('scrubs %s', (_, text, scrubbed) => {
    expect(scrubText(text)).toBe(scrubbed);
  });

  it('leaves ordinary paths, slugs and ids alone (and returns them as they came)', () => {
    for (const text of [
      '/exchange/v1/trading/orders/replace/list',
      '/catalog/v1/events/slug/will-the-federal-reserve-cut-rates-in-december-2026',
      '/retail/v1/order/3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d/cancel',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    ])
      expect(scrubText(text)).toBe(text);
  });
});
