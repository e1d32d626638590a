import { createHmac, createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';

import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import { startTestSandbox } from './support/sandbox-harness.js';
import type { Json } from './support/stack.js';

// Assertions are built here with node:crypto, never with libs/auth: the sandbox must be proven on its own.
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const TTL_SECONDS = 60;
const RS256 = { alg: 'RS256', typ: 'JWT' };

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    exchange: {
      tokenTtlSeconds: TTL_SECONDS,
      clients: [
        { clientId: 'desk', firm: 'FIRMA', users: ['alice', 'bob'] },
        { clientId: 'reader', firm: 'FIRMA', users: ['alice'], scopes: ['read:accounts'] },
        { clientId: 'rotating', firm: 'FIRMB', users: ['carol'] },
      ],
    },
  });
});
afterAll(() => sandbox.close());
afterEach(() => {
  sandbox.state.setClockSkew(0);
  sandbox.state.setFaults({ authDown: false });
});

const json = (res: Response): Promise<Json> => res.json() as Promise<Json>;
const b64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const privateKeyOf = (clientId: string): KeyObject =>
  createPrivateKey(
    readFileSync(sandbox.keys.exchange.find((key) => key.clientId === clientId)?.privateKeyFile ?? '', 'utf8'),
  );

function signJwt(payload: object, key: KeyObject = privateKeyOf('desk'), header: object = RS256): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), key).toString('base64url')}`;
}

function claims(clientId = 'desk', overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = nowSeconds();
  return {
    iss: clientId,
    sub: clientId,
    aud: `${sandbox.urls.auth}/oauth/token`,
    iat,
    exp: iat + 60,
    jti: randomUUID(),
    ...overrides,
  };
}

function requestToken(assertion: string, body: Record<string, unknown> = {}): Promise<Response> {
  const fields = {
    client_id: 'desk',
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: assertion,
    audience: sandbox.urls.exchange,
    grant_type: 'client_credentials',
  };
  return fetch(`${sandbox.urls.auth}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...fields, ...body }),
  });
}

async function accessToken(clientId = 'desk'): Promise<string> {
  const res = await requestToken(signJwt(claims(clientId), privateKeyOf(clientId)), { client_id: clientId });
  expect(res.status).toBe(200);
  return ((await json(res)) as { access_token: string }).access_token;
}

function exchange(path: string, token?: string, participant?: string): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (participant) headers['x-participant-id'] = participant;
  return fetch(sandbox.urls.exchange + path, { headers });
}

async function expectOAuthError(res: Response, status: number, error: string): Promise<void> {
  expect({ status: res.status, body: await json(res) }).toEqual({
    status,
    body: { error, error_description: expect.any(String) },
  });
}

describe('sandbox auth server: POST /oauth/token', () => {
  it('issues a Bearer token for a good assertion, carrying the client scopes', async () => {
    const res = await requestToken(signJwt(claims()));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await json(res);
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: TTL_SECONDS });
    const payload = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString()) as {
      scope: string;
    };
    expect(payload.scope.split(' ')).toEqual(
      expect.arrayContaining(['read:accounts', 'read:positions', 'write:orders']),
    );
  });

  it('answers invalid_client for an assertion signed with an unregistered key', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await expectOAuthError(await requestToken(signJwt(claims(), stranger)), 401, 'invalid_client');
  });

  it('answers invalid_client for an unknown client_id', async () => {
    await expectOAuthError(
      await requestToken(signJwt(claims('nobody')), { client_id: 'nobody' }),
      401,
      'invalid_client',
    );
  });

  const hs256 = (payload: object): string => {
    const input = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(payload)}`;
    return `${input}.${createHmac('sha256', 'shared-secret').update(input).digest('base64url')}`;
  };
  it.each<[string, string, () => string]>([
    [
      'aud is the API address instead of the token URL',
      'wrong_aud',
      () => signJwt(claims('desk', { aud: sandbox.urls.exchange })),
    ],
    ['exp has passed', 'expired', () => signJwt(claims('desk', { iat: nowSeconds() - 120, exp: nowSeconds() - 60 }))],
    ['exp is more than 300 s after iat', 'bad_lifetime', () => signJwt(claims('desk', { exp: nowSeconds() + 301 }))],
    [
      'iat is in the future',
      'iat_in_future',
      () => signJwt(claims('desk', { iat: nowSeconds() + 60, exp: nowSeconds() + 120 })),
    ],
    ['iss differs from sub', 'iss_sub_mismatch', () => signJwt(claims('desk', { sub: 'reader' }))],
    ['alg is HS256', 'wrong_alg', () => hs256(claims())],
    ['alg is none', 'wrong_alg', () => `${b64url({ alg: 'none' })}.${b64url(claims())}.`],
    ['JWT is malformed', 'malformed', () => 'not-a.jwt'],
    ...['iss', 'sub', 'aud', 'iat', 'exp', 'jti'].map((claim): [string, string, () => string] => [
      `${claim} claim is missing`,
      'missing_claim',
      () => signJwt(claims('desk', { [claim]: undefined })),
    ]),
  ])('answers invalid_client_assertion when the %s (%s)', async (_, reason, assertion) => {
    const before = sandbox.state.counter(`token.rejected.${reason}`);
    await expectOAuthError(await requestToken(assertion()), 401, 'invalid_client_assertion');
    expect(sandbox.state.counter(`token.rejected.${reason}`)).toBe(before + 1);
  });

  it('answers invalid_client_assertion for a replayed jti', async () => {
    const assertion = signJwt(claims());
    expect((await requestToken(assertion)).status).toBe(200);
    await expectOAuthError(await requestToken(assertion), 401, 'invalid_client_assertion');
  });

  it.each<[string, () => Record<string, unknown>, string]>([
    ['audience is the token URL', () => ({ audience: `${sandbox.urls.auth}/oauth/token` }), 'invalid_request'],
    ['grant_type is password', () => ({ grant_type: 'password' }), 'unsupported_grant_type'],
    ['client_assertion_type is wrong', () => ({ client_assertion_type: 'urn:example:other' }), 'invalid_request'],
    ['client_assertion is missing', () => ({ client_assertion: undefined }), 'invalid_request'],
  ])('answers 400 when the body %s', async (_, body, error) => {
    await expectOAuthError(await requestToken(signJwt(claims()), body()), 400, error);
  });

  it('answers 400 invalid_request to a form-encoded body', async () => {
    const res = await fetch(`${sandbox.urls.auth}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    await expectOAuthError(res, 400, 'invalid_request');
  });

  it('counts accepted and rejected token requests by reason', () => {
    const counters = sandbox.state.counterSnapshot();
    expect(counters['token.accepted']).toBeGreaterThan(0);
    expect(counters['token.rejected.replayed_jti']).toBe(1);
    expect(counters['token.rejected.bad_signature']).toBe(1);
  });
});

describe('sandbox exchange: bearer, scope and participant checks', () => {
  const ALICE = 'firms/FIRMA/users/alice';

  it('serves GET /v1/health without a token', async () => {
    expect((await exchange('/v1/health')).status).toBe(200);
  });

  it('answers /v1/whoami and /v1/users for a valid token', async () => {
    const token = await accessToken();
    const participants = [ALICE, 'firms/FIRMA/users/bob'];
    expect(await json(await exchange('/v1/whoami', token))).toMatchObject({
      clientId: 'desk',
      firm: 'FIRMA',
      participants,
    });
    expect(await json(await exchange('/v1/users', token))).toEqual({ users: participants });
  });

  it.each<[string, () => Promise<string | undefined>]>([
    ['no token', async () => undefined],
    [
      'a token the sandbox did not sign',
      async () => signJwt({ sub: 'desk', scope: 'read:accounts', exp: nowSeconds() + 60 }),
    ],
  ])('answers 401 in gRPC shape to %s', async (_, token) => {
    const res = await exchange('/v1/whoami', await token());
    expect({ status: res.status, body: await json(res) }).toEqual({
      status: 401,
      body: { code: 16, message: expect.any(String), details: [] },
    });
  });

  it('answers 401 once the token has expired on the sandbox clock', async () => {
    const token = await accessToken();
    sandbox.state.setClockSkew((TTL_SECONDS + 1) * 1000);
    const res = await exchange('/v1/whoami', token);
    expect(res.status).toBe(401);
    expect((await json(res)).message).toContain('expired');
  });

  it('answers 403 naming the missing scope', async () => {
    const res = await exchange('/v1/positions', await accessToken('reader'), ALICE);
    expect({ status: res.status, body: await json(res) }).toEqual({
      status: 403,
      body: { code: 7, message: 'permission denied: missing required scope read:positions', details: [] },
    });
  });

  it.each([
    ['missing', undefined],
    ['of another firm', 'firms/FIRMB/users/carol'],
    ['not a user of the firm', 'firms/FIRMA/users/mallory'],
    ['not of the participant form', 'alice'],
  ])('answers 403 when x-participant-id is %s', async (_, participant) => {
    const res = await exchange('/v1/positions', await accessToken(), participant);
    expect({ status: res.status, body: await json(res) }).toEqual({
      status: 403,
      body: { code: 7, message: expect.stringContaining('permission denied'), details: [] },
    });
  });

  it('answers GET /v1/positions for a participant of the token firm', async () => {
    const res = await exchange('/v1/positions', await accessToken(), ALICE);
    expect({ status: res.status, body: await json(res) }).toEqual({ status: 200, body: { positions: [] } });
  });

  it('answers unknown routes and bad JSON in gRPC shape', async () => {
    const missing = await exchange('/v1/nowhere', await accessToken());
    expect({ status: missing.status, body: await json(missing) }).toEqual({
      status: 404,
      body: { code: 5, message: expect.any(String), details: [] },
    });
    const bad = await fetch(`${sandbox.urls.exchange}/v1/trading/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
    expect({ status: bad.status, body: await json(bad) }).toEqual({
      status: 400,
      body: { code: 3, message: expect.any(String), details: [] },
    });
  });
});

describe('sandbox operator routes (/_sandbox)', () => {
  const admin = (path: string, method = 'GET', body?: object): Promise<Response> =>
    fetch(`${sandbox.urls.auth}/_sandbox${path}`, {
      method,
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
  const rotatingToken = (key: KeyObject): Promise<Response> =>
    requestToken(signJwt(claims('rotating'), key), { client_id: 'rotating' });

  it('rotates a client key: both work during the overlap, the removed one stops', async () => {
    const oldKey = privateKeyOf('rotating');
    const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const added = await admin('/exchange/clients/rotating/keys', 'POST', {
      publicKeyPem: next.publicKey.export({ type: 'spki', format: 'pem' }),
    });
    expect(added.status).toBe(201);
    const { fingerprint, fingerprints } = (await json(added)) as { fingerprint: string; fingerprints: string[] };
    expect(fingerprints).toHaveLength(2);
    expect((await rotatingToken(oldKey)).status).toBe(200);
    expect((await rotatingToken(next.privateKey)).status).toBe(200);

    const oldFingerprint = fingerprints.find((f) => f !== fingerprint) ?? '';
    expect((await admin(`/exchange/clients/rotating/keys/${oldFingerprint}`, 'DELETE')).status).toBe(200);
    await expectOAuthError(await rotatingToken(oldKey), 401, 'invalid_client');
    expect((await rotatingToken(next.privateKey)).status).toBe(200);
    expect(sandbox.state.counter(`token.accepted.fingerprint.${fingerprint}`)).toBe(2);
  });

  it('refuses a private key where a public key is expected, without echoing it', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const res = await admin('/exchange/clients/rotating/keys', 'POST', { publicKeyPem: pem });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('PRIVATE');
  });

  it('drops token requests without an answer while authDown is set', async () => {
    expect(await json(await admin('/faults', 'POST', { authDown: true }))).toEqual({ authDown: true });
    await expect(requestToken(signJwt(claims()))).rejects.toThrow();
    await admin('/faults', 'POST', { authDown: false });
    expect((await requestToken(signJwt(claims()))).status).toBe(200);
  });

  it('sets the clock skew and shows counters without secrets', async () => {
    expect(await json(await admin('/clock', 'POST', { skewMs: 45_000 }))).toEqual({ skewMs: 45_000 });
    expect(sandbox.state.clock.skewMs).toBe(45_000);
    const { counters } = (await json(await admin('/counters'))) as { counters: Record<string, number> };
    expect(counters['token.dropped']).toBe(1);
    expect(Object.values(counters).every((value) => typeof value === 'number')).toBe(true);
  });

  it('answers 400 invalid_request to a bad operator body', async () => {
    await expectOAuthError(await admin('/clock', 'POST', { skewMs: 'soon' }), 400, 'invalid_request');
  });
});
