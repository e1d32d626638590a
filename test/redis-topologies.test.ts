import type { RedisConfig } from '@lib/core';

import { caller, restingBuy } from './support/load.js';
import { PARTICIPANT, type Json, type Stack, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// Issue 18, item 2: every Redis-backed feature on the run's Redis Cluster (3 masters + 3 replicas) and
// Sentinel group (jest global setup), through two real gateways sharing it: fan-out leases and relay
// (sharded pub/sub on the Cluster), WebSocket tickets, the shared budget (scripts on every master).

const addresses = (list: string | undefined) =>
  (list ?? '').split(',').map((address) => ({ host: address.split(':')[0], port: Number(address.split(':')[1]) }));

const TOPOLOGIES: [string, () => RedisConfig][] = [
  [
    'Redis Cluster',
    () => ({
      mode: 'cluster',
      nodes: addresses(process.env.TEST_REDIS_CLUSTER_NODES),
      keyPrefix: '',
      commandTimeoutMs: 500,
      connectTimeoutMs: 2_000,
    }),
  ],
  [
    'Redis Sentinel',
    () => ({
      mode: 'sentinel',
      sentinels: addresses(process.env.TEST_REDIS_SENTINELS),
      sentinelName: process.env.TEST_REDIS_SENTINEL_NAME,
      keyPrefix: '',
      commandTimeoutMs: 500,
      connectTimeoutMs: 2_000,
    }),
  ],
];

const slug = 'aec-nba-mil-phi-2026-11-21';
const MARKET = `retail.marketData.${slug}`;

describe.each(TOPOLOGIES)('two gateways on a %s', (_, redisConfig) => {
  let a: Stack;
  let b: Stack;
  const clients: WsTestClient[] = [];

  beforeAll(async () => {
    const keyPrefix = `t${process.pid}:${Math.random().toString(36).slice(2, 8)}:`;
    const onTopology = (config: Json) => ({ ...config, redis: { ...redisConfig(), keyPrefix } });
    a = await startStack({ gateway: onTopology });
    b = await startStack({ gateway: onTopology, reuseSandbox: a.sandbox });
  }, 60_000);
  afterAll(async () => {
    clients.forEach((client) => client.close());
    await b?.close();
    await a?.close();
  });

  async function subscribed(stack: Stack, topic: string): Promise<WsTestClient> {
    const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
    clients.push(client);
    client.send({ type: 'subscribe', id: 's', topics: [topic] });
    await client.next((frame) => frame.type === 'ack', 10_000);
    return client;
  }

  /** Lease changes the two gateways counted that let a topic be held twice for a while (Redis late or silent). */
  async function localHolds(): Promise<number> {
    const texts = await Promise.all(
      [a, b].map(async (stack) => (await caller(stack.url, stack.keys.all)('/metrics')).text()),
    );
    const holds = texts.flatMap((text) => [
      ...text.matchAll(/^gateway_fanout_lease_changes_total\{change="(?:fenced|silence|lost|unreachable)"\} (\d+)$/gm),
    ]);
    return holds.reduce((sum, match) => sum + Number(match[1]), 0);
  }

  /**
   * One upstream subscription for the topic. On a busy machine a Redis answer can come later than the
   * command timeout: the joining instance then holds the topic locally (counted) until it hears the
   * cluster's holder, and yields. Two holdings are accepted only so, and must end.
   */
  async function heldOnce(): Promise<void> {
    const active = () => a.sandbox.state.retail.activeSubscriptions();
    if (active() === 1) return;
    const counted = await localHolds();
    console.log(`topic held ${active()} times; lease changes counted: ${counted}`);
    expect(counted).toBeGreaterThan(0);
    const deadline = Date.now() + 10_000;
    while (active() !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(active()).toBe(1);
  }

  it('holds a stream once and relays it: the same frames, epoch and seq on both', async () => {
    const [onA, onB] = [await subscribed(a, MARKET), await subscribed(b, MARKET)];
    await heldOnce();
    for (let i = 0; i < 5; i++) {
      a.sandbox.state.engine.insert({
        symbol: slug,
        side: 'SIDE_BUY',
        orderQty: 1,
        price: 10 + i,
        timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
        account: PARTICIPANT,
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const last = (client: WsTestClient) => client.topic(MARKET).at(-1);
    await onA.next(() => onA.topic(MARKET).length >= 6, 10_000);
    await onB.next(() => last(onB)?.seq === last(onA)?.seq, 10_000);
    const tail = (client: WsTestClient) =>
      client
        .topic(MARKET)
        .slice(-5)
        .map((frame: Json) => [frame.epoch, frame.seq, frame.data]);
    expect(tail(onB)).toEqual(tail(onA));
    await heldOnce();
  });

  it('accepts on one gateway a ticket issued by the other, once', async () => {
    const res = await fetch(`${a.url}/ws/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.keys.all}` },
    });
    const { ticket } = (await res.json()) as { ticket: string };
    clients.push(await WsTestClient.open(b.url, { ticket }));
    await expect(WsTestClient.open(a.url, { ticket })).rejects.toMatchObject({ status: 401 });
  });

  it('decides the shared budget in Redis, never in local fallback', async () => {
    const answers = await Promise.all(
      [a, b].flatMap((stack, s) =>
        Array.from({ length: 6 }, (_, i) =>
          caller(stack.url, stack.keys.all)('/retail/v1/orders', restingBuy(s * 6 + i)),
        ),
      ),
    );
    // The promise is where the budget was decided (Redis, never local fallback), not that a busy machine
    // reads every answer in time: a Redis answer read later than maxDecisionAgeMs is refused (429,
    // limitedBy 'unavailable', retry at once) so the request is not sent bunched with later ones.
    const outcomes = await Promise.all(
      answers.map(async (res) =>
        res.status === 200 ? '200' : `${res.status} ${((await res.json()) as { limitedBy?: string }).limitedBy}`,
      ),
    );
    expect(outcomes.filter((outcome) => outcome !== '200' && outcome !== '429 unavailable')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome === '200').length).toBeGreaterThan(answers.length / 2);
    for (const stack of [a, b]) {
      const metrics = await (await fetch(`${stack.url}/metrics`)).text();
      expect(metrics).toMatch(/^ratelimit_degraded 0$/m);
    }
  });
});
