import { fleetConfig } from './support/fleet.js';
import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { type Answer, caller, offer, restingBuy, tally } from './support/load.js';
import { type Stack, eventually, startStack } from './support/stack.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const STEP_MS = 40_000;

/** The longest stretch (ms, from the first to the last answer) of refusals in a row, in the order the answers came. */
function longestRefusal(answers: readonly Answer[]): number {
  let longest = 0;
  let since: number | undefined;
  for (const a of [...answers].sort((x, y) => x.at - y.at)) {
    if (a.status === 200) since = undefined;
    else longest = Math.max(longest, a.at - (since ??= a.at));
  }
  return longest;
}

/**
 * A gateway process whose wall clock is wrong or steps (test/support/wall-clock.mjs moves `Date` in that
 * process only, as NTP or `date -s` would move the system clock): buckets and lifetimes count on the
 * monotonic clock, and what the upstream judges (retail timestamps, the exchange assertion's iat/exp)
 * is dated by the upstream's clock as learned from its answers (issue 30).
 */
describe('a gateway process whose wall clock is wrong or steps', () => {
  let stack: Stack;
  let gateway: GatewayProcess | undefined;

  beforeAll(async () => {
    stack = await startStack();
  }, 60_000);
  afterEach(() => gateway?.stop());
  afterAll(() => stack?.close());

  it('steps back 40 s and forward 40 s under load: no client refused for longer than a second, no 5xx', async () => {
    gateway = await spawnGateway(fleetConfig(stack, 'clockstep'), { wallClock: { stepsMs: [-STEP_MS, STEP_MS] } });
    const process = gateway;
    const call = caller(process.url, stack.keys.all);
    await eventually(
      () => fetch(`${process.url}/health/ready`),
      (r) => r.status === 200,
      20_000,
      200,
    );
    const step = async (n: number) => {
      process.process.kill('SIGUSR2');
      await eventually(
        async () => process.output().split('test wall clock stepped').length - 1,
        (steps) => steps === n,
        5_000,
      );
    };
    const [answers] = await Promise.all([
      offer(8, 12_000, (i) => call('/retail/v1/orders', { ...restingBuy(i), headers: { 'x-retail-account': 'main' } })),
      (async () => {
        await sleep(3_000);
        await step(1); // back 40 s
        await sleep(4_000);
        await step(2); // forward 40 s
      })(),
    ]);
    const longest = longestRefusal(answers);
    const errors = answers.filter((a) => a.status >= 500 || a.status === 0);
    console.log(
      `wall clock -40 s at 3 s, +40 s at 7 s; 8 creates/s for 12 s: gateway ${JSON.stringify(tally(answers))}; longest run of refusals ${longest} ms; 5xx ${errors.length}`,
    );
    expect(errors).toEqual([]);
    expect(longest).toBeLessThanOrEqual(1_000);
  }, 90_000);

  it('started with its clock 25 s ahead: gets an exchange token (dated by the auth server clock), becomes ready, signs valid retail requests', async () => {
    gateway = await spawnGateway(fleetConfig(stack, 'clockahead'), { wallClock: { offsetMs: 25_000 } });
    const process = gateway;
    const call = caller(process.url, stack.keys.all);
    const ready = await eventually(
      () => fetch(`${process.url}/health/ready`),
      (r) => r.status === 200,
      15_000,
      200,
    ).catch((error: Error) => error);
    const exchange = (await call('/exchange/v1/whoami')).status;
    const retail = (await call('/retail/v1/orders', { ...restingBuy(0), headers: { 'x-retail-account': 'main' } }))
      .status;
    // Log lines leave the process in batches (at most 100 ms later): the warning is waited for, not read at once.
    const warning = await eventually(
      async () => /exchange auth server clock differs from ours by (-?\d+) ms/.exec(process.output())?.[1],
      (found) => found !== undefined,
      5_000,
      50,
    ).catch(() => undefined);
    console.log(
      `clock 25 s ahead: ready ${ready instanceof Error ? `never (${ready.message.slice(0, 60)})` : 'yes'}; exchange whoami ${exchange}; retail create ${retail}; offset warned ${warning ?? '-'} ms; token requests refused for iat_in_future ${stack.sandbox.state.counter('token.rejected.iat_in_future')}`,
    );
    expect(ready).not.toBeInstanceOf(Error);
    expect(exchange).toBe(200);
    expect(retail).toBe(200);
    expect(Number(warning)).toBeLessThan(-20_000); // the warning names the offset
  }, 60_000);
});
