import { type Fleet, resetRetailLimits, startFleet, withoutKeyRate } from './support/fleet.js';
import type { GatewayProcess } from './support/gateway-process.js';
import { type Answer, answerOf, caller, maxInWindow, offer, restingBuy, tally } from './support/load.js';
import { type Json, type Stack, json } from './support/stack.js';

const LIMIT = 440; // spec §8: POST /v1/orders, 440 per 10 s
const WINDOW_MS = 10_000;
const REFILL_PER_WINDOW = LIMIT * 0.9; // limits.safetyMargin 0.9
const BURST = (LIMIT * 0.1) / 2; // window-safe default burst: limit × (1 − safetyMargin) / 2, limits.schema.ts
const RUN_MS = 30_000;
/** The first window after a start holds the burst, so a run a little longer than one window shows whether it fits. */
const COLD_RUN_MS = 11_000;
const PER_PROCESS_PER_SECOND = 44; // three processes together: 3 × the limit

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How often each process fell back to local buckets (it logs each episode once). */
function degradedEpisodes(fleet: readonly GatewayProcess[]): string {
  return `degraded episodes per process: ${fleet.map((g) => g.output().split('Redis unreachable').length - 1).join('/')}`;
}

describe('the retail budget shared by three gateway processes', () => {
  let cluster: Fleet | undefined;
  let stack: Stack;
  let fleet: GatewayProcess[] = [];
  let calls: ReturnType<typeof caller>[];

  beforeAll(async () => {
    cluster = await startFleet('cluster', 3, {}, withoutKeyRate);
    ({ stack, processes: fleet, calls } = cluster);
  }, 90_000);
  afterAll(() => cluster?.close());

  /** Offers 3× the create limit for `ms` through the three processes; what the gateways answered and what reached the sandbox. */
  async function overload(ms: number) {
    const { state } = stack.sandbox;
    resetRetailLimits(stack); // the published limits (spec §8)
    const arrivals = state.retail.recordArrivals('createOrder');
    const began = Date.now();
    const answers = await offer(PER_PROCESS_PER_SECOND * fleet.length, ms, (i) =>
      calls[i % fleet.length]('/retail/v1/orders', restingBuy(i)),
    );
    const seconds = (Date.now() - began) / 1_000;
    const accepted = arrivals.filter((a) => a.accepted).length;
    const perWindowMax = maxInWindow(
      arrivals.map((a) => a.at),
      WINDOW_MS,
    );
    const budget = REFILL_PER_WINDOW * (seconds / 10) + BURST;
    const refusedUpstream = arrivals.filter((a) => !a.accepted).map((a) => a.at - began);
    console.log(
      `3 processes, ${seconds.toFixed(1)} s at ${PER_PROCESS_PER_SECOND * fleet.length}/s: gateway answers ${JSON.stringify(tally(answers))}; ` +
        `sandbox received ${arrivals.length} creates, at most ${perWindowMax} in a sliding 10 s (limit ${LIMIT}), refused ${refusedUpstream.length} (at ms ${refusedUpstream.join(', ') || '-'}); ` +
        `utilisation ${((100 * accepted) / budget).toFixed(1)} % (${accepted} of ${budget.toFixed(0)}); ${degradedEpisodes(fleet)}`,
    );
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    expect(perWindowMax).toBeLessThanOrEqual(LIMIT);
    expect(refusedUpstream).toEqual([]);
    expect(state.counter('retail.limited.create') + state.counter('retail.limited.all')).toBe(0);
    expect(answers.filter((a) => a.status === 429 && a.code !== 'RATE_LIMITED')).toEqual([]); // every 429 decided at the gateway
    expect(answers.filter((a) => a.status === 200)).toHaveLength(accepted);
    return { accepted, budget };
  }

  // First, as deployed: fresh processes open their connections to the upstream with the first creates, which are slower.
  it('stays within 440 creates per sliding 10 s from a cold start under 3× that load', async () => {
    await overload(COLD_RUN_MS);
  }, 60_000);

  it('sends the upstream at most 440 creates per sliding 10 s under 3× that load, using at least 90 % of the budget', async () => {
    // Warm processes (connections to the sandbox open, code compiled), by reads that leave the create bucket alone.
    for (const call of calls)
      for (let i = 0; i < 20; i++) expect((await call('/retail/v1/account/balances')).status).toBe(200);
    await sleep(1_500); // an earlier test may have left the create bucket empty; 1.1 s fills its burst again
    const { accepted, budget } = await overload(RUN_MS);
    expect(accepted).toBeGreaterThanOrEqual(0.9 * budget);
  }, 90_000);

  it('pauses creates on every instance for the Retry-After of an upstream 429 seen by one, then lets them flow', async () => {
    const { state } = stack.sandbox;
    resetRetailLimits(stack);
    await sleep(1_500); // the last test left the create bucket empty; 1.1 s fills its burst again
    for (const call of calls) expect((await call('/retail/v1/orders', restingBuy(0))).status).toBe(200);

    state.retail.throttleNext('createOrder', 1, 2);
    const sentAt = Date.now();
    const refused = await calls[0]('/retail/v1/orders', restingBuy(1));
    const arrivals = state.retail.recordArrivals('createOrder');
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    expect(state.counter('retail.throttled.createOrder')).toBe(1);

    // The cool-down started after `sentAt` and lasts 2 s: a create answered before sentAt + 2 s was decided inside it.
    const probes: { gateway: number; answer: Answer }[] = [];
    const flowing = new Set<number>();
    while (flowing.size < calls.length && Date.now() < sentAt + 2_000 + 5_000) {
      const round = await Promise.all(
        calls.map((call, gateway) =>
          answerOf(call('/retail/v1/orders', restingBuy(gateway))).then((answer) => ({ gateway, answer })),
        ),
      );
      for (const probe of round) if (probe.answer.status === 200) flowing.add(probe.gateway);
      probes.push(...round);
      await sleep(100);
    }
    const inside = probes.filter((p) => p.answer.at < sentAt + 2_000);
    const firstArrival = arrivals[0]?.at;
    console.log(
      `cool-down: ${inside.length} creates answered within 2 s of the upstream 429 (${JSON.stringify(tally(inside.map((p) => p.answer)))}); ` +
        `the next create reached the sandbox ${firstArrival === undefined ? 'never' : `${firstArrival - sentAt} ms`} after it was sent`,
    );
    for (const gateway of [1, 2]) expect(inside.filter((p) => p.gateway === gateway).length).toBeGreaterThanOrEqual(3);
    expect(inside.map((p) => p.answer)).toEqual(
      inside.map(() => expect.objectContaining({ status: 429, code: 'RATE_LIMITED', limitedBy: 'cool-down' })),
    );
    expect(arrivals.filter((a) => a.at < sentAt + 2_000)).toEqual([]);
    expect([...flowing].sort()).toEqual([0, 1, 2]);
  }, 30_000);

  it('reports the shared buckets on every instance', async () => {
    for (const gateway of fleet) {
      const view: Json = await json(await caller(gateway.url, stack.keys.all)('/admin/limits'));
      expect(view).toMatchObject({ mode: 'redis', degraded: false, instances: 3 });
    }
  });
});
