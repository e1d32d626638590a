import { decodeJwt } from 'jose';

import { grant, ManualClock } from '../testing/auth.fixtures.js';
import { LogCapture } from '../testing/log-capture.js';
import { EXCHANGE, TokenHarness } from '../testing/token-harness.js';
import { ExchangeTokenProvider } from './exchange-token.provider.js';

const IAT_LEEWAY_SECONDS = 5; // as the sandbox's auth server allows

describe(`${ExchangeTokenProvider.name} when our clock is wrong`, () => {
  let harness: TokenHarness;
  let logs: LogCapture;

  beforeEach(() => {
    logs = LogCapture.install();
  });
  afterEach(() => harness.close());

  it('dates the assertion by the auth server clock: refused for iat in the future, it learns the offset from the Date header and resends at once', async () => {
    const clock = new ManualClock(Date.now() + 25_000); // 25 s ahead of the auth server (this host's real clock)
    harness = new TokenHarness(clock);
    const sut = await harness.build();
    const { server } = harness;
    // Each iat against the clock that should have dated it: ours (frozen 25 s ahead) for the first try, the
    // auth server's (this host's real clock, read when the assertion arrives) for the resend. Not against a
    // fixed 25 s: a busy machine may take seconds between building the clock and the first request.
    const iats: { ours: number; server: number }[] = [];
    server.reply = (n) => {
      const iat = decodeJwt(String(server.requests[n - 1].client_assertion)).iat ?? 0;
      iats.push({ ours: iat - Math.floor(clock.now() / 1000), server: iat - Math.floor(Date.now() / 1000) });
      return iat > Date.now() / 1000 + IAT_LEEWAY_SECONDS
        ? { status: 400, body: { error: 'invalid_client_assertion', error_description: 'iat is in the future' } }
        : grant(n);
    };
    await expect(sut.authorization(EXCHANGE)).resolves.toBe('Bearer token-2');
    expect(server.requests).toHaveLength(2);
    expect(Math.abs(iats[0].ours)).toBeLessThanOrEqual(1); // dated by our clock
    expect(iats[0].server).toBeGreaterThan(IAT_LEEWAY_SECONDS); // hence refused
    expect(Math.abs(iats[1].server)).toBeLessThanOrEqual(2); // dated by the auth server's
    expect(logs.text()).toMatch(/exchange auth server clock differs from ours by -\d{4,5} ms/);
  });
});
