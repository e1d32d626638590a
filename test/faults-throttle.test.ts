import { limit } from './support/exchange-stack.js';
import { type Fleet, LOOP_BOT, startFleet, throttled } from './support/fleet.js';
import { caller } from './support/load.js';
import { StallProxy } from './support/stall-proxy.js';
import { json, redisUrl } from './support/stack.js';

// The per-client throttle when Redis goes away mid-burst: each instance falls back to its share of the
// rate (rate / fleet size). Those local shares started full, so the fleet let through the shared burst
// the client had just spent plus a full local share per instance: more than the burst plus the refill.

const RATE = 12;
const BOT = LOOP_BOT;
const withThrottle = throttled(RATE);

describe('per-client throttle when Redis is cut mid-burst (two gateway processes)', () => {
  let proxy: StallProxy;
  let fleet: Fleet;

  beforeAll(async () => {
    proxy = await StallProxy.start(Number(new URL(redisUrl()).port));
    fleet = await startFleet(
      'faultsthrottle',
      2,
      {
        clients: [BOT],
        gateway: withThrottle,
        sandbox: { exchange: { limits: { instruments: 'off', book: 'off', search: 'off', 'trade-stats': 'off' } } },
      },
      (config) => withThrottle({ ...config, redis: { ...config.redis!, url: proxy.url } }),
    );
  }, 120_000);
  afterAll(async () => {
    await fleet?.close();
    await proxy?.close();
  });

  it('lets through at most the burst plus the refill across the cut, and answers every call 200 or 429', async () => {
    const via = fleet.processes.map((gateway) => caller(gateway.url, fleet.stack.keys[BOT.id]!));
    const inserts = () => fleet.stack.sandbox.state.counterSnapshot()['exchange.calls.insertOrder'] ?? 0;
    let n = 0;
    const round = (calls: number) =>
      Promise.all(
        Array.from({ length: calls }, async () => {
          const i = n++;
          const res = await via[i % 2]!('/exchange/v1/trading/orders', {
            method: 'POST',
            body: JSON.stringify(limit('SIDE_BUY', 1, 10 + (i % 5), { clordId: `cut-loop-${i}` })),
          });
          return { status: res.status, code: res.ok ? 'OK' : ((await json(res)).code as string) };
        }),
      );
    // Idle long enough for the shared bucket to be full.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const before = inserts();
    const started = performance.now();
    const shared = await round(RATE + 4); // spends the shared burst
    proxy.cut();
    const cut = await round(RATE + 4); // every instance now decides alone
    const seconds = (performance.now() - started) / 1_000;
    const answers = [...shared, ...cut];
    // A call the throttle let through was sent (200) or refused by the upstream budget after it (429 RATE_LIMITED).
    const passed = answers.filter((answer) => answer.code !== 'RISK_THROTTLED').length;
    console.log(
      `throttle across a Redis cut: ${passed} of ${answers.length} passed the throttle in ${seconds.toFixed(2)} s at ${RATE}/s ` +
        `(shared ${JSON.stringify(shared.map((a) => a.code))}, cut ${JSON.stringify(cut.map((a) => a.code))})`,
    );
    expect(passed).toBeLessThanOrEqual(RATE + Math.floor(RATE * seconds));
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
    expect(answers.every((answer) => ['OK', 'RISK_THROTTLED', 'RATE_LIMITED'].includes(answer.code))).toBe(true);
    expect(inserts() - before).toBe(answers.filter((answer) => answer.status === 200).length);
  }, 60_000);
});
