import { redactUrl, scrubText } from './redaction.js';

describe('redaction', () => {
  it('replaces secret query values and keeps the rest of the URL', () => {
    expect(redactUrl('/ws?ticket=abc123&topic=x')).toBe('/ws?ticket=%5Bredacted%5D&topic=x');
    expect(redactUrl('/me')).toBe('/me');
  });

  it('leaves a query that names no secret exactly as it came', () => {
    expect(redactUrl('/v1/events?limit=5&tagIds=1&tagIds=2&tokenized=x&my_ticket=1')).toBe('/v1/events?limit=5&tagIds=1&tagIds=2&tokenized=x&my_ticket=1');
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
});
