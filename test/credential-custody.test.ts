import { generateKeyPairSync } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';

import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, api, eventually, json, startStack } from './support/stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends GET `path` every `everyMs` for `forMs`, returning every status seen. */
async function steadyStream(stack: Stack, path: string, forMs: number, everyMs = 40): Promise<number[]> {
  const statuses: number[] = [];
  const until = Date.now() + forMs;
  while (Date.now() < until) {
    statuses.push((await api(stack)(path)).status);
    await sleep(everyMs);
  }
  return statuses;
}

describe('exchange token custody', () => {
  it('200 concurrent requests on a cold gateway cause exactly one token request', async () => {
    const stack = await startStack();
    try {
      const statuses = await Promise.all(
        Array.from({ length: 200 }, async () => (await api(stack)('/exchange/v1/whoami')).status),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(stack.sandbox.state.counter('token.requests')).toBe(1);
      expect(stack.sandbox.state.counter('exchange.accepted')).toBe(200);
    } finally {
      await stack.close();
    }
  });

  it('refreshes ahead of expiry over several token lifetimes with no 401 anywhere', async () => {
    const stack = await startStack({ sandbox: { exchange: { tokenTtlSeconds: 3 } } });
    try {
      const statuses = await steadyStream(stack, '/exchange/v1/whoami', 10_000);
      expect(statuses.length).toBeGreaterThan(50);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      const { state } = stack.sandbox;
      expect(state.counter('token.accepted')).toBeGreaterThanOrEqual(4); // at least three lifetimes renewed
      expect(state.counter('exchange.rejected.expired')).toBe(0); // refreshed ahead, never late
    } finally {
      await stack.close();
    }
  }, 30_000);

  it('answers an upstream 401 for a token believed valid with one refresh and one resend', async () => {
    const stack = await startStack();
    try {
      expect((await api(stack)('/exchange/v1/whoami')).status).toBe(200);
      const { state } = stack.sandbox;
      const before = state.counter('token.requests');
      state.revokeAccessTokens();
      const res = await api(stack)('/exchange/v1/whoami');
      expect(res.status).toBe(200);
      expect(state.counter('exchange.rejected.revoked')).toBe(1);
      expect(state.counter('token.requests')).toBe(before + 1);
    } finally {
      await stack.close();
    }
  });

  it('keeps serving while the auth server is down until the token expires, then fails fast and recovers by itself', async () => {
    const stack = await startStack({
      sandbox: { exchange: { tokenTtlSeconds: 3 } },
      gateway: (config) => ({ ...config, exchange: { refreshBackoffInitialMs: 100, refreshBackoffMaxMs: 400 } }),
    });
    try {
      expect((await api(stack)('/exchange/v1/whoami')).status).toBe(200);
      stack.sandbox.state.setFaults({ authDown: true });
      // Still served from the cached token for a while...
      expect((await api(stack)('/exchange/v1/whoami')).status).toBe(200);
      // ...then, once it has expired, a fast 503 problem and readiness not ready.
      const failed = await eventually(
        () => api(stack)('/exchange/v1/whoami'),
        (r) => r.status !== 200,
        8_000,
      );
      expect(failed.status).toBe(503);
      expect(failed.headers.get('content-type')).toContain('application/problem+json');
      expect(await json(failed)).toMatchObject({ code: 'UPSTREAM_AUTH_UNAVAILABLE' });
      expect(stack.sandbox.state.counter('exchange.rejected.expired')).toBe(0); // the expired token was never sent
      const ready = await fetch(`${stack.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await json(ready)).toMatchObject({ error: { 'exchange-token': { status: 'down' } } });
      const text = JSON.stringify(await json(await fetch(`${stack.url}/health/ready`)));
      expect(text).not.toMatch(/eyJ|Bearer/);

      stack.sandbox.state.setFaults({ authDown: false });
      await eventually(
        () => api(stack)('/exchange/v1/whoami'),
        (r) => r.status === 200,
        5_000,
      );
      await eventually(
        () => fetch(`${stack.url}/health/ready`),
        (r) => r.status === 200,
        5_000,
      );
    } finally {
      await stack.close();
    }
  }, 30_000);

  it('rotates the exchange key during a steady stream with zero failed requests', async () => {
    const stack = await startStack({ sandbox: { exchange: { tokenTtlSeconds: 2 } } });
    try {
      const { state } = stack.sandbox;
      const { clientId, privateKeyFile } = stack.sandbox.keys.exchange[0];
      const [oldKey] = state.exchangeKeyFingerprints(clientId);
      const stream = steadyStream(stack, '/exchange/v1/whoami', 9_000);

      await sleep(1_000);
      const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const newKey = state.addExchangeKey(clientId, next.publicKey.export({ type: 'spki', format: 'pem' }) as string);
      // Operators replace the file atomically; the gateway notices the change and reloads.
      writeFileSync(`${privateKeyFile}.next`, next.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, {
        mode: 0o600,
      });
      renameSync(`${privateKeyFile}.next`, privateKeyFile);
      await eventually(
        async () => state.counter(`token.accepted.fingerprint.${newKey}`),
        (n) => n > 0,
        6_000,
      );
      state.removeExchangeKey(clientId, oldKey); // old key retired: only the new one can work now

      const statuses = await stream;
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(state.counter(`token.accepted.fingerprint.${newKey}`)).toBeGreaterThanOrEqual(2);
      expect(state.counter('token.rejected.invalid_client')).toBe(0);
    } finally {
      await stack.close();
    }
  }, 30_000);
});

describe('exchange participants', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      clients: [
        { id: 'alice-only', scopes: ['read:positions'], participants: [PARTICIPANT] },
        { id: 'nobody', scopes: ['read:positions'], participants: [] },
      ],
    });
  });
  afterAll(() => stack.close());

  it('sends the default participant, or the requested one when the client may use it', async () => {
    expect((await api(stack, 'alice-only')('/exchange/v1/positions')).status).toBe(200);
    const res = await api(stack)('/exchange/v1/positions', { headers: { 'x-participant-id': OTHER_PARTICIPANT } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ positions: [] });
  });

  it('refuses a participant the client may not use before anything is sent', async () => {
    const before =
      stack.sandbox.state.counter('exchange.accepted') + stack.sandbox.state.counter('exchange.rejected.participant');
    const denied = await api(stack, 'alice-only')('/exchange/v1/positions', {
      headers: { 'x-participant-id': OTHER_PARTICIPANT },
    });
    expect(denied.status).toBe(403);
    expect(await json(denied)).toMatchObject({ code: 'FORBIDDEN', participant: OTHER_PARTICIPANT });
    expect((await api(stack, 'nobody')('/exchange/v1/positions')).status).toBe(403);
    expect(
      stack.sandbox.state.counter('exchange.accepted') + stack.sandbox.state.counter('exchange.rejected.participant'),
    ).toBe(before);
  });

  it('answers 401 without a key and 403 without the scope', async () => {
    expect((await fetch(`${stack.url}/exchange/v1/positions`)).status).toBe(401);
    const res = await api(stack, 'alice-only')('/exchange/v1/whoami');
    expect(res.status).toBe(403);
    expect((await json(res)).missingScope).toBe('read:accounts');
  });
});

describe('retail signing', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ clients: [{ id: 'main-only', scopes: ['read:positions'], retailAccounts: ['main'] }] });
  });
  afterAll(() => stack.close());

  it('signs with the default account, or the requested one when allowed', async () => {
    const { state } = stack.sandbox;
    const [main, hedge] = stack.sandbox.keys.retail;
    const res = await api(stack, 'main-only')('/retail/v1/account/balances');
    expect(res.status).toBe(200);
    expect((await json(res)).balances[0]).toMatchObject({ currency: 'USD', currentBalance: expect.any(Number) });
    expect(state.counter(`retail.accepted.key.${main.keyId}`)).toBe(1);
    expect((await api(stack)('/retail/v1/account/balances', { headers: { 'x-retail-account': 'hedge' } })).status).toBe(
      200,
    );
    expect(state.counter(`retail.accepted.key.${hedge.keyId}`)).toBe(1);
  });

  it('refuses an account the client may not use before anything is sent', async () => {
    const res = await api(stack, 'main-only')('/retail/v1/account/balances', {
      headers: { 'x-retail-account': 'hedge' },
    });
    expect(res.status).toBe(403);
    expect(stack.sandbox.state.counter(`retail.accepted.key.${stack.sandbox.keys.retail[1].keyId}`)).toBe(1);
  });

  it('keeps working when the upstream clock is 45 s off, by learning the offset', async () => {
    const { state } = stack.sandbox;
    state.setClockSkew(45_000);
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await api(stack)('/retail/v1/account/balances')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      const skewRejections = Object.entries(state.counterSnapshot()).filter(([name]) =>
        name.startsWith('retail.rejected.'),
      );
      expect(skewRejections.length).toBeGreaterThan(0); // the first signature really was refused, then re-signed
      const metrics = await (await fetch(`${stack.url}/metrics`)).text();
      expect(metrics).toMatch(
        /gateway_retail_server_clock_offset_seconds 4[45]\.\d+|gateway_retail_server_clock_offset_seconds 4[45]\b/,
      );
    } finally {
      state.setClockSkew(0);
    }
  });
});
