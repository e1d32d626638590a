import type { ChildProcess } from 'node:child_process';

import { killed } from './support/processes.js';
import { redisCli, startRedisServer } from './support/redis-server.js';
import {
  OTHER_PARTICIPANT,
  PARTICIPANT,
  type Stack,
  TEST_REDIS_COMMAND_TIMEOUT_MS,
  eventually,
} from './support/stack.js';
import { startStack } from './support/stack.js';
import { WsClients } from './support/ws-client.js';

/**
 * The firm's exchange streams are counted in Redis (each instance writes back what it holds every
 * `renewEveryMs`). When Redis loses its data (restarted empty, FLUSHALL, failover to an empty replica),
 * the count reads empty until the holders have written theirs back: a claim meanwhile was granted on
 * that empty count, and the firm held more streams at the exchange than the operator allows.
 */
const FIRM_STREAMS = 5;
const CAP = FIRM_STREAMS - 1; // less the reserve of 1: all of it the platform team's share
const RENEW_MS = 1_000;
const HELD = [
  'exchange.dropcopy',
  'exchange.trades',
  `exchange.orders.${PARTICIPANT}`,
  `exchange.positions.${PARTICIPANT}`,
];
const clientsConfig = [
  { id: 'desk', team: 'platform', scopes: ['read:dropcopy' as const, 'read:orders' as const] },
  { id: 'desk2', team: 'platform', scopes: ['read:orders' as const] },
];

describe("the firm's exchange streams when Redis loses its data (two gateways, a Redis of their own)", () => {
  let redis: { port: number; url: string; process: ChildProcess };
  let one: Stack;
  let two: Stack;
  const clients = new WsClients();
  /** Streams open at the exchange, as the sandbox counts them. */
  const upstreamStreams = () => Object.values(one.sandbox.state.streams.view().byCall).reduce((sum, n) => sum + n, 0);

  beforeAll(async () => {
    redis = await startRedisServer(); // its own: this file flushes it
    const gateway = (config: Parameters<NonNullable<Parameters<typeof startStack>[0]>['gateway'] & object>[0]) => ({
      ...config,
      redis: {
        mode: 'single' as const,
        url: redis.url,
        keyPrefix: `ledgerloss${process.pid}:`,
        commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS,
      },
      streams: {
        exchange: {
          firmStreams: FIRM_STREAMS,
          reserve: 1,
          teamShares: { platform: CAP },
          renewEveryMs: RENEW_MS,
          holdingTtlMs: 5 * RENEW_MS,
        },
      },
    });
    one = await startStack({ redis: true, clients: clientsConfig, gateway });
    two = await startStack({ redis: true, clients: clientsConfig, gateway, reuseSandbox: one.sandbox });
  }, 60_000);
  afterAll(async () => {
    clients.closeAll();
    await two?.close();
    await one?.close();
    if (redis) await killed(redis.process);
  });

  it('refuses a new stream until the holders have written theirs back, and the exchange never holds more than the cap', async () => {
    const desk = await clients.connect(one, 'desk');
    expect(await desk.subscribe(HELD)).toMatchObject({ type: 'ack', topics: HELD });
    expect(upstreamStreams()).toBe(CAP);
    // Both instances have seen the count's generation (each looks every renewEveryMs).
    await new Promise((resolve) => setTimeout(resolve, 3 * RENEW_MS));

    expect(await redisCli(redis.port, 'FLUSHALL')).toContain('OK');
    const desk2 = await clients.connect(two, 'desk2');
    const more = `exchange.orders.${OTHER_PARTICIPANT}`;
    const right = await desk2.subscribe([more]);
    expect(right).toMatchObject({ type: 'error' });
    expect(upstreamStreams()).toBeLessThanOrEqual(CAP);

    // Once the holders wrote theirs back: refused on the count, naming the team's share.
    const later = await eventually(
      () => desk2.subscribe([more]),
      (answer) => answer.code === 'too_many_streams',
      15_000,
      250,
    );
    expect(later).toMatchObject({ type: 'error', code: 'too_many_streams', cap: 'team', limit: CAP });
    expect(upstreamStreams()).toBeLessThanOrEqual(CAP);
  }, 60_000);
});
