import { type Stack, startStack } from './support/stack.js';

describe('log redaction', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('writes no secret that a request carried, in any redacted place', async () => {
    const secrets = {
      apiKey: stack.keys.all,
      accessKey: '3f1c9a52-0000-4b8a-9c21-5e6f7a8b9c0d',
      signature: 'c2lnbmF0dXJlLXRoYXQtbXVzdC1ub3QtYmUtbG9nZ2Vk',
      timestamp: '1795297710943',
      accessToken: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0b2tlbiJ9.dG9rZW4tc2lnbmF0dXJl',
      assertion: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhc3NlcnRpb24ifQ.YXNzZXJ0aW9uLXNpZw',
      ticket: 'ticket-value-that-must-not-be-logged',
      cookie: 'session=cookie-value-that-must-not-be-logged',
    };
    const query = `?access_token=${secrets.accessToken}&client_assertion=${secrets.assertion}&ticket=${secrets.ticket}&symbol=visible`;
    const headers = {
      authorization: `Bearer ${secrets.apiKey}`,
      'x-pm-access-key': secrets.accessKey,
      'x-pm-signature': secrets.signature,
      'x-pm-timestamp': secrets.timestamp,
      cookie: secrets.cookie,
      'x-request-id': 'redaction-probe',
    };
    expect((await fetch(`${stack.url}/me${query}`, { headers })).status).toBe(200);
    expect(
      (
        await fetch(`${stack.url}/me${query}`, {
          headers: { ...headers, authorization: 'Bearer pmgw_wrong-key-wrong-key-wrong-key-00' },
        })
      ).status,
    ).toBe(401);
    await new Promise((r) => setTimeout(r, 50)); // let pino flush the response lines

    const log = stack.logs.join('');
    expect(log).toContain('redaction-probe'); // the requests were logged at all
    expect(log).toContain('symbol=visible');
    for (const [name, value] of Object.entries(secrets)) {
      expect({ name, found: log.includes(value) }).toEqual({ name, found: false });
    }
    expect(log).not.toContain('pmgw_wrong-key');
  });

  it('writes one JSON access line per request, every client-chosen string escaped', async () => {
    const userAgent = 'probe "quoted" \\ back\\slash é';
    const lineOf = (requestId: string) => {
      const found = stack.logs
        .join('')
        .split('\n')
        .filter((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"log":"access"'));
      expect(found).toHaveLength(1);
      return JSON.parse(found[0]) as Record<string, unknown>;
    };
    const ok = await fetch(`${stack.url}/me?access_token=secret-in-query&symbol=x`, {
      headers: { authorization: `Bearer ${stack.keys.all}`, 'user-agent': userAgent, 'x-request-id': 'access-line-ok' },
    });
    expect(ok.status).toBe(200);
    const missing = await fetch(`${stack.url}/no/such/route`, { headers: { 'x-request-id': 'access-line-404' } });
    expect(missing.status).toBe(404);
    await new Promise((r) => setTimeout(r, 50));

    const line = lineOf('access-line-ok');
    expect(line).toMatchObject({
      level: 30,
      pid: process.pid,
      log: 'access',
      method: 'GET',
      userAgent,
      client: 'all',
      status: 200,
      msg: 'request completed',
    });
    expect(decodeURIComponent(String(line.url))).toBe('/me?access_token=[redacted]&symbol=x');
    expect(typeof line.time).toBe('number');
    expect(typeof line.ms).toBe('number');
    expect(typeof line.remoteAddress).toBe('string');
    expect(lineOf('access-line-404')).toMatchObject({ level: 40, status: 404, url: '/no/such/route' });
    expect(lineOf('access-line-404')).not.toHaveProperty('client');
  });

  it('scrubs a key wherever a client puts it: path, a query of any name, user agent, request id', async () => {
    const key = stack.keys.all;
    const signature = `${'Zm9v+YmFy/'.repeat(8)}Ab3dE6==`;
    const probes: [string, RequestInit][] = [
      [`/me/${key}`, { headers: { 'x-request-id': 'scrub-path' } }],
      [`/me?key=${key}`, { headers: { 'x-request-id': 'scrub-key' } }],
      [`/me?api-key=${key}&sig=${encodeURIComponent(signature)}`, { headers: { 'x-request-id': 'scrub-api-key' } }],
      ['/me', { headers: { 'x-request-id': 'scrub-agent', 'user-agent': `bot ${key} Bearer ${key}` } }],
      ['/me', { headers: { 'x-request-id': key } }],
    ];
    for (const [path, init] of probes) await fetch(stack.url + path, init);
    await new Promise((r) => setTimeout(r, 50));

    const log = stack.logs.join('');
    for (const id of ['scrub-path', 'scrub-key', 'scrub-api-key', 'scrub-agent'])
      expect(log).toContain(`"requestId":"${id}"`);
    expect(log.includes(key.slice('pmgw_'.length))).toBe(false);
    expect(log.includes(signature) || log.includes(encodeURIComponent(signature))).toBe(false);
  });
});
