import { limit } from './support/exchange-stack.js';
import { type Fleet, LOOP_BOT, startFleet, throttled } from './support/fleet.js';
import { caller } from './support/load.js';
import { json } from './support/stack.js';

// The per-client throttle is the fleet's: a bot whose calls a load balancer spreads over two gateway
// processes gets the rate once, not once per process (each process counted on its own before).

const RATE = 2;
const CALLS = 12;
const BOT = LOOP_BOT;
const withThrottle = throttled(RATE);

describe('per-client throttle across gateway processes', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet(
      'riskthrottle',
      2,
      {
        clients: [BOT],
        gateway: withThrottle,
        sandbox: { exchange: { limits: { instruments: 'off', book: 'off', search: 'off', 'trade-stats': 'off' } } },
      },
      withThrottle,
    );
  }, 120_000);
  afterAll(() => fleet?.close());

  it(`admits at most the burst plus ${RATE}/s over the whole run, whichever process each call enters`, async () => {
    const via = fleet.processes.map((gateway) => caller(gateway.url, fleet.stack.keys[BOT.id]!));
    const inserts = () => fleet.stack.sandbox.state.counterSnapshot()['exchange.calls.insertOrder'] ?? 0;
    const before = inserts();
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const res = await via[i % 2]!('/exchange/v1/trading/orders', {
          method: 'POST',
          body: JSON.stringify(limit('SIDE_BUY', 1, 10 + (i % 5), { clordId: `fleet-loop-${i}` })),
        });
        return { status: res.status, code: res.ok ? 'OK' : ((await json(res)).code as string) };
      }),
    );
    const seconds = (performance.now() - started) / 1_000;
    const accepted = answers.filter((answer) => answer.status === 200).length;
    const throttled = answers.filter((answer) => answer.code === 'RISK_THROTTLED').length;
    console.log(
      `fleet throttle: ${accepted} of ${CALLS} accepted over ${seconds.toFixed(2)} s at ${RATE}/s across 2 processes, ${throttled} RISK_THROTTLED`,
    );
    // The promise, not a count a busy machine shifts: never more than the burst (one second's worth)
    // plus what the rate refills while the calls were under way. Per process it was twice that.
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(RATE + Math.floor(RATE * seconds));
    expect(throttled).toBeGreaterThanOrEqual(1);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
    expect(inserts() - before).toBe(accepted);
  });
});
