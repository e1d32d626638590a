import { fleetConfig, productionDecisionAge, resetRetailLimits, withoutKeyRate } from './support/fleet.js';
import type { GatewayProcess } from './support/gateway-process.js';
import { type Answer, caller, maxInWindow, offer, restingBuy, spawnFleet, tally } from './support/load.js';
import { freePort, redisCli, startRedisServer } from './support/redis-server.js';
import { type Json, type Stack, eventually, json, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';
import { killed } from './support/processes.js';

const KEYS = { main: '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d', hedge: '8a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' } as const; // the stack's retail keys
const PER_KEY_LIMIT = 20; // upstream-facts "Retail extras": 20 requests/s per API key
const LIMIT_10S = 440; // spec §8: POST /v1/orders, 440 per 10 s per key
/** When the (first) fault is set off, from the start of the load. */
const EVENT_AT_MS = 5_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Instances that logged that Redis lost the budget (the generation check), of the fleet. */
const recognised = (fleet: readonly GatewayProcess[]) =>
  fleet.filter((g) => g.output().includes('lost the shared budget')).length;

type Account = keyof typeof KEYS;

/**
 * Redis losing its data (restarted empty, or FLUSHALL without a disconnect) is one event for the fleet:
 * the budget's generation key goes with the cells, every instance notices on its next call, goes local on
 * spent cells, and the instances known before stay reserved until each is back (issue 30).
 */
describe('the shared budget when Redis loses its data (three gateway processes, a real Redis)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  }, 60_000);
  afterAll(() => stack?.close());

  /** Offers `perSecond` creates per account for `ms` round the fleet, runs `during` alongside; per-account arrivals. */
  async function load(
    fleet: readonly GatewayProcess[],
    accounts: readonly Account[],
    perSecond: number,
    ms: number,
    during: () => Promise<string>,
  ) {
    const arrivals = stack.sandbox.state.retail.recordArrivals('createOrder');
    const calls = fleet.map((g) => caller(g.url, stack.keys.all));
    const began = Date.now();
    const [answers, story] = await Promise.all([
      Promise.all(
        accounts.map((account) =>
          offer(perSecond, ms, (i) =>
            calls[i % calls.length]('/retail/v1/orders', {
              ...restingBuy(i),
              headers: { 'x-retail-account': account },
            }),
          ),
        ),
      ),
      during(),
    ]);
    const seconds = (Date.now() - began) / 1_000;
    const figures = accounts.map((account, i) => {
      const mine = arrivals.filter((a) => a.keyId === KEYS[account]);
      const times = mine.map((a) => a.at);
      const beforeEvent = maxInWindow(
        times.filter((t) => t < began + EVENT_AT_MS),
        1_000,
      );
      return {
        account,
        answers: answers[i],
        beforeEvent,
        perSecond: maxInWindow(times, 1_000),
        per10s: maxInWindow(times, 10_000),
        refused: mine.filter((a) => !a.accepted).length,
        received: mine.length,
      };
    });
    for (const f of figures) {
      console.log(
        `${story}; ${f.account}: ${seconds.toFixed(1)} s at ${perSecond}/s, gateway ${JSON.stringify(tally(f.answers))}; sandbox received ${f.received}, ` +
          `at most ${f.perSecond} in a sliding second (limit ${PER_KEY_LIMIT}; ${f.beforeEvent} before the first fault), ${f.per10s} in a sliding 10 s (limit ${LIMIT_10S}), upstream 429s ${f.refused}; ` +
          `instances that recognised the loss ${recognised(fleet)} of ${fleet.length}`,
      );
    }
    return figures;
  }

  const gatewayFaults = (answers: readonly Answer[]) =>
    answers.filter((a) => a.status !== 200 && !(a.status === 429 && a.code === 'RATE_LIMITED'));

  async function fleetOn(name: string, redisUrl: string, edit: (c: GatewayConfigInput) => GatewayConfigInput) {
    const base = fleetConfig(stack, name, (c) => edit(productionDecisionAge(c))); // it judges per-second limits
    const fleet = await spawnFleet({ ...base, redis: { ...base.redis!, url: redisUrl } }, 3);
    await eventually(
      async (): Promise<Json> => json(await caller(fleet[0].url, stack.keys.all)('/admin/limits')),
      (view) => view.instances === 3 && view.mode === 'redis',
    );
    return fleet;
  }

  it('Redis killed and restarted empty mid-load: never more than 20 of one key in a sliding second, no upstream 429', async () => {
    let redis = await startRedisServer(await freePort());
    const fleet = await fleetOn('restart', redis.url, (c) => c);
    try {
      stack.sandbox.state.retail.limiter.reset(); // spec §8 and the 20/s per key, as published
      const figures = await load(fleet, ['main', 'hedge'], 3 * 15, 12_000, async () => {
        await sleep(EVENT_AT_MS);
        await killed(redis.process);
        redis = await startRedisServer(redis.port);
        return 'Redis SIGKILLed at 5 s and restarted empty on its port';
      });
      for (const f of figures) {
        expect(f.perSecond).toBeLessThanOrEqual(PER_KEY_LIMIT);
        expect(f.refused).toBe(0);
        expect(gatewayFaults(f.answers)).toEqual([]);
      }
      expect(stack.sandbox.state.counter('retail.limited.key')).toBe(0);
      expect(recognised(fleet)).toBe(3); // one event for every instance, not a network blip
    } finally {
      await Promise.all(fleet.map((g) => g.stop()));
      await killed(redis.process);
    }
  }, 120_000);

  it('FLUSHALL mid-load, twice within 10 s: never more than 440 in a sliding 10 s, no upstream 429', async () => {
    const redis = await startRedisServer(await freePort());
    const fleet = await fleetOn('flush', redis.url, withoutKeyRate);
    try {
      resetRetailLimits(stack); // spec §8 buckets; the per-key second is lifted on both sides (it would decide everything)
      const [figures] = await load(fleet, ['main'], 88, 16_000, async () => {
        await sleep(EVENT_AT_MS);
        await redisCli(redis.port, 'FLUSHALL');
        await sleep(4_000);
        await redisCli(redis.port, 'FLUSHALL');
        return 'FLUSHALL at 5 s and 9 s (no disconnect)';
      });
      expect(figures.per10s).toBeLessThanOrEqual(LIMIT_10S);
      expect(figures.refused).toBe(0);
      expect(gatewayFaults(figures.answers)).toEqual([]);
      expect(recognised(fleet)).toBe(3);
    } finally {
      await Promise.all(fleet.map((g) => g.stop()));
      await killed(redis.process);
    }
  }, 120_000);
});
