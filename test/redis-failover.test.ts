import type { RedisConfig } from '@lib/core';

import type { GatewayProcess } from './support/gateway-process.js';
import { caller, maxInWindow, offer, restingBuy, spawnFleet, tally } from './support/load.js';
import {
  type RedisTopology,
  SENTINEL_MASTER,
  freePorts,
  redisCli,
  startRedisCluster,
  startRedisSentinel,
} from './support/redis-server.js';
import { type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, startStack } from './support/stack.js';

// Issue 18, item 3: failover under load. Three gateway processes offer 3× the retail create limit;
// the master holding the budget's slot is SIGKILLed; its replica is promoted. Private topologies:
// the run's shared ones must not lose a master under other suites.

const LIMIT = 440; // spec §8: POST /v1/orders, 440 per 10 s
const PER_PROCESS_PER_SECOND = 44;
const RUN_MS = 14_000;
const KILL_AFTER_MS = 3_000;
/** How long after the promotion the test keeps looking for shared budgeting again (it asserts 5 s). */
const RECOVERY_WATCH_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const local = (port: number) => ({ host: '127.0.0.1', port });

interface Topology {
  start(): Promise<RedisTopology>;
  config(topology: RedisTopology): RedisConfig;
  /** The port of the master holding the budget keys (one hash tag: one slot) and of its replica. */
  budgetMaster(topology: RedisTopology): Promise<{ master: number; replica: number }>;
}

const CLUSTER: Topology = {
  start: async () => startRedisCluster(await freePorts(6)),
  config: (t) => ({
    mode: 'cluster',
    nodes: t.nodes.map((n) => local(n.port)),
    keyPrefix: 'fo:',
    commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS,
    connectTimeoutMs: 1_000,
  }),
  async budgetMaster(t) {
    for (const { port } of t.nodes) {
      if (
        !(await redisCli(port, 'role')).startsWith('master') ||
        !(await redisCli(port, '--scan', '--pattern', '*:rl:*')).trim()
      )
        continue;
      const id = (await redisCli(port, 'cluster', 'myid')).trim();
      const replica = (await redisCli(port, 'cluster', 'replicas', id)).match(/127\.0\.0\.1:(\d+)/);
      return { master: port, replica: Number(replica?.[1]) };
    }
    throw new Error('no master holds budget keys');
  },
};

const SENTINEL: Topology = {
  start: async () => startRedisSentinel(await freePorts(5)),
  config: (t) => ({
    mode: 'sentinel',
    sentinels: t.nodes.slice(2).map((n) => local(n.port)),
    sentinelName: SENTINEL_MASTER,
    keyPrefix: 'fo:',
    commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS,
    connectTimeoutMs: 1_000,
  }),
  budgetMaster: async (t) => ({ master: t.nodes[0].port, replica: t.nodes[1].port }),
};

/** `ratelimit_degraded` of every process, polled: when shared budgeting stopped and resumed. */
async function degradedOf(fleet: GatewayProcess[]): Promise<boolean> {
  const texts = await Promise.all(
    fleet.map((g) =>
      fetch(`${g.url}/metrics`).then(
        (r) => r.text(),
        () => 'ratelimit_degraded 1',
      ),
    ),
  );
  return texts.some((text) => /^ratelimit_degraded 1$/m.test(text));
}

describe.each([
  ['Redis Cluster', CLUSTER],
  ['Redis Sentinel', SENTINEL],
])('failover of the budget master on a %s under 3× the create limit', (name, topology) => {
  let redis: RedisTopology;
  let stack: Stack;
  let fleet: GatewayProcess[] = [];

  beforeAll(async () => {
    redis = await topology.start();
    stack = await startStack();
    // The journal is not what this judges: a starved PostgreSQL answering a write after the production 2 s
    // (503 JOURNAL_UNAVAILABLE, nothing sent: the journal's own fault row) is given longer here.
    const journal = { ...stack.configInput.journal, statementTimeoutMs: 15_000 };
    fleet = await spawnFleet(
      { ...stack.configInput, journal, logging: { level: 'warn' }, redis: topology.config(redis) },
      3,
    );
  }, 90_000);
  afterAll(async () => {
    await Promise.all(fleet.map((g) => g.stop()));
    await stack?.close();
    redis?.stop();
  });

  it(
    'promotes the replica; no 5xx; the upstream window never exceeds the limit; shared budgeting resumes by itself (the time printed)',
    async () => {
      const { state } = stack.sandbox;
      state.retail.limiter.reset();
      const arrivals = state.retail.recordArrivals('createOrder');
      const calls = fleet.map((g) => caller(g.url, stack.keys.all));
      const began = Date.now();
      const load = offer(PER_PROCESS_PER_SECOND * fleet.length, RUN_MS, (i) =>
        calls[i % fleet.length]('/retail/v1/orders', restingBuy(i)),
      );

      await sleep(KILL_AFTER_MS);
      const { master, replica } = await topology.budgetMaster(redis);
      redis.nodes.find((n) => n.port === master)?.process.kill('SIGKILL');
      const killedAt = Date.now();
      let promotedAt: number | undefined;
      let recoveredAt: number | undefined;
      let wasDegraded = false;
      // Watched past the load while recovery is still due: a starved poll must not end the watch first.
      const watching = () =>
        Date.now() - began < RUN_MS ||
        (promotedAt !== undefined && recoveredAt === undefined && Date.now() - promotedAt < RECOVERY_WATCH_MS);
      while (watching()) {
        promotedAt ??= (await redisCli(replica, 'role').catch(() => '')).startsWith('master') ? Date.now() : undefined;
        const degraded = await degradedOf(fleet);
        wasDegraded ||= degraded;
        if (promotedAt && !degraded) recoveredAt ??= Date.now();
        else if (degraded) recoveredAt = undefined;
        await sleep(100);
      }
      const answers = await load;
      const windowMax = maxInWindow(
        arrivals.map((a) => a.at),
        10_000,
      );
      const errors = answers.filter((a) => a.status >= 500 || a.status === 0);
      const recovery = promotedAt && recoveredAt ? Math.max(0, recoveredAt - promotedAt) / 1_000 : undefined;
      console.log(
        `${name}: promoted ${promotedAt ? ((promotedAt - killedAt) / 1_000).toFixed(1) : '-'} s after the SIGKILL; degraded at some point: ${wasDegraded}; ` +
          `shared budgeting back ${recovery?.toFixed(1) ?? '-'} s after the promotion; answers ${JSON.stringify(tally(answers))}; 5xx ${errors.length}; ` +
          `upstream sliding-10-s max ${windowMax} (limit ${LIMIT}); upstream refused ${arrivals.filter((a) => !a.accepted).length}`,
      );
      // Not back: what each process said of its Redis link, for whoever reads the failure.
      if (recovery === undefined)
        for (const [i, g] of fleet.entries()) {
          const said = g
            .output()
            .split('\n')
            .filter((line) => line.includes('Rate-limit budget'));
          console.log(`process ${i}:\n${said.slice(-6).join('\n')}`);
        }
      expect(promotedAt).toBeDefined();
      expect(errors).toEqual([]);
      expect(windowMax).toBeLessThanOrEqual(LIMIT);
      // Liveness, not speed: an instance rejoins after two probes answered in time in a row, so on a starved CPU
      // it stays on its local shares (conservative) for longer; the time is printed, and the README says it.
      expect(recovery).toBeDefined();
      // The load, then the recovery watch (up to RECOVERY_WATCH_MS after the promotion), then the answers: past jest's 30 s.
    },
    RUN_MS + RECOVERY_WATCH_MS + 30_000,
  );
});
