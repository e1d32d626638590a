import { verify } from 'node:crypto';

import type { MetricsRegistry, Readiness } from '@lib/core';
import { decodeJwt, decodeProtectedHeader } from 'jose';

import { CredentialTargetError } from '../environment/environment-binding.js';
import { eventually, grant, ManualClock, type TokenServer } from '../testing/auth.fixtures.js';
import { LogCapture } from '../testing/log-capture.js';
import { EXCHANGE, TokenHarness } from '../testing/token-harness.js';
import { CLIENT_ASSERTION_TYPE } from './client-assertion.js';
import { ExchangeTokenProvider } from './exchange-token.provider.js';

describe(ExchangeTokenProvider.name, () => {
  let harness: TokenHarness;
  let server: TokenServer;
  let authUrl: string;
  let clock: ManualClock;
  let registry: MetricsRegistry;
  let readiness: Readiness;
  let sut: ExchangeTokenProvider;
  let logs: LogCapture;

  async function build(edit?: Parameters<TokenHarness['build']>[0]): Promise<ExchangeTokenProvider> {
    const built = await harness.build(edit);
    ({ server, registry, readiness } = harness);
    authUrl = harness.binding.environment.authUrl;
    return built;
  }

  beforeEach(async () => {
    logs = LogCapture.install();
    clock = new ManualClock();
    harness = new TokenHarness(clock);
    sut = await build();
  });

  afterEach(() => harness.close());

  it('sends an RS256 client assertion with every claim of spec 5.1, verifiable with the public key', async () => {
    await expect(sut.authorization(`${EXCHANGE}/v1/trading/orders`)).resolves.toBe('Bearer token-1');

    const request = server.requests[0];
    expect(request).toMatchObject({
      method: 'POST',
      path: '/oauth/token',
      client_id: 'gateway-test',
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      audience: EXCHANGE,
      grant_type: 'client_credentials',
    });
    const assertion = String(request.client_assertion);
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: 'RS256', typ: 'JWT' });
    const iat = Math.floor(clock.ms / 1000);
    const claims = decodeJwt(assertion);
    expect(claims).toEqual({
      iss: 'gateway-test',
      sub: 'gateway-test',
      aud: `${authUrl}/oauth/token`,
      iat,
      exp: iat + 60,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const [header, payload, signature] = assertion.split('.');
    expect(
      verify(
        'RSA-SHA256',
        Buffer.from(`${header}.${payload}`),
        harness.keys.exchangePublicKey,
        Buffer.from(signature, 'base64url'),
      ),
    ).toBe(true);
  });

  it('uses a fresh jti and the configured lifetime for every assertion', async () => {
    sut = await build((input) => void (input.exchange = { assertionLifetimeSeconds: 300 }));
    await sut.authorization(EXCHANGE);
    sut.rejected('Bearer token-1');
    await sut.authorization(EXCHANGE);

    const [first, second] = server.requests.map((r) => decodeJwt(String(r.client_assertion)));
    expect(first.jti).not.toBe(second.jti);
    expect(Number(first.exp) - Number(first.iat)).toBe(300);
  });

  it('makes one token request for 200 concurrent callers on a cold cache', async () => {
    server.reply = (n) => ({ ...grant(n), delayMs: 50 });

    const results = await Promise.all(Array.from({ length: 200 }, () => sut.authorization(`${EXCHANGE}/v1/positions`)));

    expect(server.requests).toHaveLength(1);
    expect(new Set(results)).toEqual(new Set(['Bearer token-1']));
  });

  it('refreshes lazily once inside the refresh window, serving the current token meanwhile', async () => {
    await sut.authorization(EXCHANGE);
    clock.advance(149_000);
    await expect(sut.authorization(EXCHANGE)).resolves.toBe('Bearer token-1');
    expect(server.requests).toHaveLength(1);

    clock.advance(2_000); // 151 s of 180: inside the 30 s refresh window
    const during = await Promise.all(Array.from({ length: 20 }, () => sut.authorization(EXCHANGE)));
    expect(new Set(during)).toEqual(new Set(['Bearer token-1']));
    await eventually(() => sut.status().refreshCount === 2);

    await expect(sut.authorization(EXCHANGE)).resolves.toBe('Bearer token-2');
    expect(server.requests).toHaveLength(2);
  });

  it('renews a short-lived token a third of its lifetime early', async () => {
    server.reply = (n) => grant(n, 3);
    await sut.authorization(EXCHANGE);
    clock.advance(1_900);
    await sut.authorization(EXCHANGE);
    expect(server.requests).toHaveLength(1);

    clock.advance(200); // 2.1 s of 3 s: past the 1 s lead
    await sut.authorization(EXCHANGE);
    await eventually(() => server.requests.length === 2);
  });

  it('renews ahead of expiry by timer, without any caller', async () => {
    clock.now = () => Date.now(); // the timer runs on real time, so this test does too
    sut = await build();
    server.reply = (n) => grant(n, 1);

    await sut.authorization(EXCHANGE);
    await eventually(() => sut.status().refreshCount >= 2, 3_000);

    expect(sut.status()).toMatchObject({ hasToken: true, failureCount: 0 });
    await expect(sut.authorization(EXCHANGE)).resolves.not.toBe('Bearer token-1');
  });

  it('drops a token the upstream rejected and fetches exactly one replacement', async () => {
    await sut.authorization(EXCHANGE);

    sut.rejected('Bearer token-1');
    sut.rejected('Bearer token-1');
    const after = await Promise.all(Array.from({ length: 50 }, () => sut.authorization(EXCHANGE)));

    expect(new Set(after)).toEqual(new Set(['Bearer token-2']));
    expect(server.requests).toHaveLength(2);
    sut.rejected('Bearer token-1'); // stale: the current token stays
    await sut.authorization(EXCHANGE);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['another port', 'http://127.0.0.1:4099/v1/trading/orders'],
    ['a longer port with the same prefix', 'http://127.0.0.1:40021/v1/trading/orders'],
    ['user info that moves the host', 'http://127.0.0.1:4002@evil.example/v1'],
    ['the retail origin', 'http://127.0.0.1:4004/v1/orders'],
    ['the production exchange', 'https://api.example.com/v1/trading/orders'],
    ['a relative path', '/v1/trading/orders'],
  ])('refuses to hand a token for %s', async (_case, target) => {
    await expect(sut.authorization(target)).rejects.toBeInstanceOf(CredentialTargetError);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to hand a token to the auth server itself', async () => {
    await expect(sut.authorization(`${authUrl}/oauth/token`)).rejects.toBeInstanceOf(CredentialTargetError);
  });

  it.each([
    ['the REST origin with a path and query', `${EXCHANGE}/v1/orderbook/X?depth=3`],
    ['the REST origin in another spelling', 'HTTP://127.0.0.1:4002/v1/health'],
    ['the gRPC target', '127.0.0.1:4003'],
    ['the gRPC target as a URL', 'http://127.0.0.1:4003'],
  ])('hands a token for %s', async (_case, target) => {
    await expect(sut.authorization(target)).resolves.toBe('Bearer token-1');
  });

  it('keeps tokens and assertions out of status, readiness, metrics and logs', async () => {
    expect(await readiness.run('exchange-token')).toMatchObject({ status: 'down', details: { hasToken: false } });
    await sut.authorization(EXCHANGE);
    clock.advance(10_000);

    const status = sut.status();
    const report = await readiness.run('exchange-token');
    const metrics = await registry.metrics();
    expect(status).toEqual({
      hasToken: true,
      tokenAgeSeconds: 10,
      expiresInSeconds: 170,
      refreshCount: 1,
      failureCount: 0,
      lastError: null,
    });
    expect(report).toEqual({ status: 'up', details: status });
    expect(metrics).toMatch(/gateway_exchange_token_refreshes_total 1\n/);
    expect(metrics).toMatch(/gateway_exchange_token_expires_in_seconds 170\n/);
    const everything = [JSON.stringify(report), metrics, logs.text()].join('\n');
    expect(everything).not.toContain('token-1');
    expect(everything).not.toContain(String(server.requests[0].client_assertion).split('.')[2]);
  });

  it('refuses at once when the running environment has no exchange client', async () => {
    sut = await build((input) => void delete input.environments.development?.exchangeClient);

    await expect(sut.authorization(EXCHANGE)).rejects.toMatchObject({ code: 'UPSTREAM_AUTH_UNAVAILABLE' });
    expect(server.requests).toHaveLength(0);
  });
});
