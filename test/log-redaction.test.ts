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
    expect((await fetch(`${stack.url}/me${query}`, { headers: { ...headers, authorization: 'Bearer pmgw_wrong-key-wrong-key-wrong-key-00' } })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 50)); // let pino flush the response lines

    const log = stack.logs.join('');
    expect(log).toContain('redaction-probe'); // the requests were logged at all
    expect(log).toContain('symbol=visible');
    for (const [name, value] of Object.entries(secrets)) {
      expect({ name, found: log.includes(value) }).toEqual({ name, found: false });
    }
    expect(log).not.toContain('pmgw_wrong-key');
  });
});
