import { type DomainError, type MetricsRegistry, type Readiness, fullJitterDelay } from '@lib/core';

import { eventually, grant, ManualClock, type TokenServer } from '../testing/auth.fixtures.js';
import { LogCapture } from '../testing/log-capture.js';
import { EXCHANGE, TokenHarness } from '../testing/token-harness.js';
import { ExchangeTokenProvider } from './exchange-token.provider.js';

const UNAVAILABLE = { code: 'UPSTREAM_AUTH_UNAVAILABLE' };

describe(`${ExchangeTokenProvider.name} when the auth server fails`, () => {
  let harness: TokenHarness;
  let server: TokenServer;
  let clock: ManualClock;
  let registry: MetricsRegistry;
  let readiness: Readiness;
  let logs: LogCapture;
  let sut: ExchangeTokenProvider;
  /** Requests after the first fail with 503 while this is false. */
  let healthy: boolean;

  beforeEach(async () => {
    logs = LogCapture.install();
    clock = new ManualClock();
    harness = new TokenHarness(clock);
    sut = await harness.build();
    ({ server, registry, readiness } = harness);
    healthy = true;
    server.reply = (n) => (n === 1 || healthy ? grant(n) : { status: 503, body: { error: 'temporarily_unavailable' } });
  });

  afterEach(() => harness.close());

  it('serves the current token until it lapses, then fails fast, then recovers by itself', async () => {
    await sut.authorization(EXCHANGE);
    healthy = false;

    clock.advance(160_000); // inside the refresh window: the refresh fails, retries back off
    await expect(sut.authorization(EXCHANGE)).resolves.toBe('Bearer token-1');
    await eventually(() => sut.status().failureCount >= 3);
    clock.advance(19_000);
    await expect(sut.authorization(EXCHANGE)).resolves.toBe('Bearer token-1');
    expect(await readiness.run('exchange-token')).toMatchObject({ status: 'degraded' });

    clock.advance(1_000); // 180 s: the token has lapsed
    let release = (): void => undefined;
    server.gate = new Promise<void>((resolve) => (release = resolve));
    const inFlight = server.requests.length;
    await eventually(() => server.requests.length > inFlight); // a retry is now waiting on the server
    const failures = await Promise.allSettled(Array.from({ length: 50 }, () => sut.authorization(EXCHANGE)));
    expect(failures.map((f) => f.status === 'rejected' && (f.reason as DomainError).code)).toEqual(
      Array(50).fill(UNAVAILABLE.code),
    );
    expect(server.requests.length).toBe(inFlight + 1); // callers did not add requests, nor wait for the one in flight
    expect(await readiness.run('exchange-token')).toMatchObject({
      status: 'down',
      details: { hasToken: false, lastError: 'server_error' },
    });

    healthy = true;
    server.gate = undefined;
    release();
    await eventually(() => sut.status().hasToken);
    await expect(sut.authorization(EXCHANGE)).resolves.toMatch(/^Bearer token-\d+$/);
    expect(await readiness.run('exchange-token')).toMatchObject({ status: 'up', details: { lastError: null } });
    expect(await registry.metrics()).toMatch(
      /gateway_exchange_token_refresh_failures_total\{reason="server_error"\} [1-9]/,
    );
  });

  it('says why a cold start failed and keeps retrying in the background', async () => {
    server.reply = (n) =>
      n <= 2
        ? { status: 401, body: { error: 'invalid_client', error_description: 'signature does not verify' } }
        : grant(n);

    await expect(sut.authorization(EXCHANGE)).rejects.toMatchObject({
      ...UNAVAILABLE,
      detail: expect.stringContaining('invalid_client'),
    });
    expect(sut.status()).toMatchObject({ hasToken: false, lastError: 'invalid_client', failureCount: 1 });

    await eventually(() => sut.status().hasToken);
    await expect(sut.authorization(EXCHANGE)).resolves.toBe('Bearer token-3');
  });

  it('tells a caller when to come back', async () => {
    server.reply = () => ({ status: 500, body: {} });

    const error: unknown = await sut.authorization(EXCHANGE).catch((e: unknown) => e);

    expect(error).toMatchObject({ ...UNAVAILABLE, headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
  });

  it.each([
    ['an answer without a token', { status: 200, body: { token_type: 'Bearer', expires_in: 180 } }, 'bad_response'],
    ['an answer that is not JSON', { status: 200, body: 'not json' }, 'bad_response'],
    ['a refused assertion', { status: 400, body: { error: 'invalid_client_assertion' } }, 'invalid_client_assertion'],
    ['another refusal', { status: 403, body: { message: 'no' } }, 'rejected'],
  ])('classifies %s', async (_case, reply, reason) => {
    server.reply = () => reply;

    await expect(sut.authorization(EXCHANGE)).rejects.toMatchObject(UNAVAILABLE);

    expect(sut.status().lastError).toBe(reason);
    expect(logs.text()).toContain(reason);
  });

  it("gives the token request its own deadline, not the order calls' (exchange.tokenTimeoutMs)", async () => {
    // Order calls may time out after 50 ms; a token that takes 200 ms is still had.
    sut = await harness.build(
      (input) => void (input.exchange = { ...input.exchange, requestTimeoutMs: 50, tokenTimeoutMs: 2_000 }),
    );
    server.reply = (n) => ({ ...grant(n), delayMs: 200 });
    await expect(sut.authorization(EXCHANGE)).resolves.toMatch(/^Bearer token-\d+$/);

    // And the token's own deadline holds.
    sut = await harness.build(
      (input) => void (input.exchange = { ...input.exchange, requestTimeoutMs: 2_000, tokenTimeoutMs: 50 }),
    );
    await expect(sut.authorization(EXCHANGE)).rejects.toMatchObject(UNAVAILABLE);
    expect(sut.status().lastError).toBe('timeout');
  });

  it('classifies an unreachable auth server as a network failure', async () => {
    await server.stop();

    await expect(sut.authorization(EXCHANGE)).rejects.toMatchObject(UNAVAILABLE);

    expect(sut.status().lastError).toBe('network');
  });
});

describe(fullJitterDelay.name, () => {
  it('draws between zero and a cap that doubles up to the maximum', () => {
    expect([1, 2, 3, 4, 10].map((n) => fullJitterDelay(n, 250, 15_000, () => 0.999999))).toEqual([
      249, 499, 999, 1999, 14999,
    ]);
    expect(fullJitterDelay(5, 250, 15_000, () => 0)).toBe(0);
  });
});
