import type { ChildProcess } from 'node:child_process';

import { resetRetailLimits, withoutKeyRate } from './support/fleet.js';
import type { GatewayProcess } from './support/gateway-process.js';
import { caller, maxInWindow, offer, restingBuy, spawnFleet, tally } from './support/load.js';
import { freePort, startRedisServer } from './support/redis-server.js';
import { type Json, type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, eventually, json, startStack } from './support/stack.js';

const LIMIT = 440; // spec §8: POST /v1/orders, 440 per 10 s
const WINDOW_MS = 10_000;
/** Creates per second offered to the fleet: above the 44/s the upstream allows, so only the limiter keeps the sandbox under it. */
const OFFERED_PER_SECOND = 60;
/** Steady shared-bucket traffic before the outage: past one window, so the first burst is out of every window that sees the outage. */
const WARM_MS = 12_000;
const OUTAGE_MS = 4_000;
const RUN_MS = 26_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('the retail budget while its Redis is down', () => {
  let stack: Stack;
  let fleet: GatewayProcess[] = [];
  let redis: { port: number; url: string; process: ChildProcess };
  const admin = (gateway: GatewayProcess) => caller(gateway.url, stack.keys.all);
  const modes = () =>
    Promise.all(fleet.map(async (g) => ((await json(await admin(g)('/admin/limits'))) as Json).mode as string));
  const readiness = () =>
    Promise.all(
      fleet.map(async (g) =>
        fetch(`${g.url}/health/ready`).then(async (r) => `${r.status} ${((await r.json()) as Json).status}`),
      ),
    );

  beforeAll(async () => {
    redis = await startRedisServer(await freePort());
    stack = await startStack();
    const input = withoutKeyRate({
      ...stack.configInput,
      logging: { level: 'warn' as const },
      redis: {
        mode: 'single' as const,
        url: redis.url,
        keyPrefix: 'outage:',
        commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS,
      },
    });
    fleet = await spawnFleet(input, 3);
    await eventually(
      async (): Promise<Json> => json(await admin(fleet[0])('/admin/limits')),
      (view) => view.instances === 3,
    );
  }, 90_000);
  afterAll(async () => {
    await Promise.all(fleet.map((gateway) => gateway.stop()));
    await stack?.close();
    if (redis) await stopped(redis.process);
  });

  it('keeps answering and the upstream under its limit from local buckets, then returns to the shared ones', async () => {
    const { state } = stack.sandbox;
    resetRetailLimits(stack);
    expect(await readiness()).toEqual(['200 ok', '200 ok', '200 ok']);
    const arrivals = state.retail.recordArrivals('createOrder');
    const began = Date.now();
    const load = offer(OFFERED_PER_SECOND, RUN_MS, (i) =>
      caller(fleet[i % fleet.length].url, stack.keys.all)('/retail/v1/orders', restingBuy(i)),
    );

    await sleep(WARM_MS);
    expect(await modes()).toEqual(['redis', 'redis', 'redis']);
    await stopped(redis.process);
    const downAt = Date.now() - began;
    const degraded = await eventually(readiness, (r) => r.every((s) => s === '200 degraded'), 5_000, 100);
    expect(await modes()).toEqual(['local', 'local', 'local']);
    await sleep(OUTAGE_MS);
    redis = await startRedisServer(redis.port);
    const upAt = Date.now() - began;
    await eventually(modes, (m) => m.every((mode) => mode === 'redis'), 5_000, 100);
    const backAfterMs = Date.now() - began - upAt;
    const ready = await eventually(readiness, (r) => r.every((s) => s === '200 ok'), 5_000, 100);
    const answers = await load;

    const accepted = arrivals.filter((a) => a.accepted).length;
    const perWindowMax = maxInWindow(
      arrivals.map((a) => a.at),
      WINDOW_MS,
    );
    const refused = arrivals.filter((a) => !a.accepted).map((a) => a.at - began);
    console.log(
      `outage from ${downAt} to ${upAt} ms of ${RUN_MS} ms at ${OFFERED_PER_SECOND}/s: readiness ${degraded.join(', ')} then ${ready.join(', ')}; shared buckets again ${backAfterMs} ms after restart; ` +
        `gateway answers ${JSON.stringify(tally(answers))}; sandbox received ${arrivals.length}, accepted ${accepted}, at most ${perWindowMax} in a sliding 10 s (limit ${LIMIT}), refused at ms ${refused.join(', ') || '-'}`,
    );
    expect(answers.filter((a) => a.status >= 500 || a.status === 0)).toEqual([]);
    expect(answers.filter((a) => a.status === 429 && a.code !== 'RATE_LIMITED')).toEqual([]);
    expect(perWindowMax).toBeLessThanOrEqual(LIMIT);
    expect(refused).toEqual([]);
    expect(state.counter('retail.limited.create') + state.counter('retail.limited.all')).toBe(0);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(accepted);
  }, 90_000);
});
