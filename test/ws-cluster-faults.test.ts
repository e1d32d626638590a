import { type RedisClient, createRedisClient } from '@lib/core';

import type { GatewayProcess } from './support/gateway-process.js';
import { caller, restingBuy, spawnFleet } from './support/load.js';
import { PARTICIPANT, type Json, type Stack, redisUrl, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// Issue 18, item 4, through the real /ws of two real gateway processes sharing the run's redis-server:
// resumeFrom names the epoch, and the lease of a SIGKILLed holder moves at the default lease (3 s).

const ORDERS = 'retail.orders';
const slug = 'aec-nba-mil-phi-2026-11-21';
const MARKET = `retail.marketData.${slug}`;
const LEASE_MS = 3_000; // the default (libs/fanout fanout.options.ts)

describe('/ws on two gateway processes: resume and holder loss', () => {
  let stack: Stack;
  let fleet: GatewayProcess[] = [];
  let admin: RedisClient;
  const keyPrefix = `wsfaults${process.pid}:`;
  const clients: WsTestClient[] = [];

  async function subscribed(gateway: GatewayProcess, topic: string, resumeFrom?: unknown): Promise<WsTestClient> {
    const client = await WsTestClient.open(gateway.url, { key: stack.keys.all });
    clients.push(client);
    client.send({
      type: 'subscribe',
      id: 's',
      topics: [topic],
      ...(resumeFrom === undefined ? {} : { resumeFrom: { [topic]: resumeFrom } }),
    });
    await client.next((frame) => frame.type === 'ack', 10_000);
    return client;
  }

  const holderOf = async (topic: string) => (await admin.get(`${keyPrefix}fanout:{${topic}}:lease`)) ?? '';

  /**
   * How often the fleet moved a topic to a new epoch for a starved process, by design: a holder that could not
   * renew in time (fenced), a relay that heard no heartbeat for silenceMs (silence), a renewal refused (lost).
   */
  async function epochMoves(): Promise<number> {
    const texts = await Promise.all(
      fleet.map(async (gateway) => (await caller(gateway.url, stack.keys.all)('/metrics')).text()),
    );
    const moves = texts.flatMap((text) => [
      ...text.matchAll(/^gateway_fanout_lease_changes_total\{change="(?:fenced|silence|lost)"\} (\d+)$/gm),
    ]);
    return moves.reduce((sum, match) => sum + Number(match[1]), 0);
  }

  beforeAll(async () => {
    stack = await startStack();
    fleet = await spawnFleet(
      { ...stack.configInput, logging: { level: 'warn' }, redis: { mode: 'single', url: redisUrl(), keyPrefix } },
      2,
    );
    admin = createRedisClient({
      mode: 'single',
      url: redisUrl(),
      keyPrefix: '',
      commandTimeoutMs: 2_000,
      connectTimeoutMs: 2_000,
    });
  }, 60_000);
  afterAll(async () => {
    clients.forEach((client) => client.close());
    await Promise.all(fleet.map((gateway) => gateway.stop()));
    await admin.quit();
    await stack?.close();
  });

  it('resumes within an epoch on the instance that holds the frames, and answers any other resume point with a resync', async () => {
    const [g1, g2] = fleet;
    const movesBefore = await epochMoves();
    const keeper = await subscribed(g1, ORDERS); // g1 takes the lease and keeps the topic open
    const place = (i: number) => caller(g1.url, stack.keys.all)('/retail/v1/orders', restingBuy(i));
    const leaving = await subscribed(g1, ORDERS);
    expect((await place(1)).status).toBe(200);
    await leaving.next((frame) => frame.topic === ORDERS && frame.type === 'update', 10_000);
    const last = leaving.topic(ORDERS).at(-1) as Json;
    leaving.close();
    expect((await place(2)).status).toBe(200);
    await keeper.next((frame) => frame.topic === ORDERS && frame.type === 'update' && frame.seq > last.seq, 10_000);
    const missed = keeper.topic(ORDERS).filter((frame: Json) => frame.seq > last.seq);

    const resumed = await subscribed(g1, ORDERS, { epoch: last.epoch, seq: last.seq });
    expect(resumed.topic(ORDERS)).toEqual(missed);
    expect(missed.every((frame: Json) => frame.type === 'update' && frame.epoch === last.epoch)).toBe(true);

    // g2 relays the same epoch but never saw that range; another epoch, or none (a bare seq), cannot be placed.
    for (const [gateway, point] of [
      [g2, { epoch: last.epoch, seq: last.seq }],
      [g1, { epoch: 'not-this-epoch', seq: last.seq }],
      [g1, last.seq],
    ] as const) {
      const other = await subscribed(gateway, ORDERS, point);
      expect(other.topic(ORDERS)).toEqual([expect.objectContaining({ type: 'resync' })]);
      const [resync] = other.topic(ORDERS) as Json[];
      // The state now: in the epoch the frames were numbered in, at the keeper's last seq. A busy machine may starve
      // a gateway past its lease or its relay's silence, and the design then moves the topic to a new epoch (with a
      // resync): another epoch is right only after such a move, which the gateways count.
      if (resync.epoch === last.epoch) expect(resync.seq).toBe(keeper.topic(ORDERS).at(-1).seq);
      else expect(await epochMoves()).toBeGreaterThan(movesBefore);
    }
  });

  it(`moves the lease of a SIGKILLed holder to the survivor within the lease (${LEASE_MS / 1000} s) + 1 s, and its clients get a resync`, async () => {
    const onEach = await Promise.all(fleet.map((gateway) => subscribed(gateway, MARKET)));
    const feed = setInterval(
      () =>
        stack.sandbox.state.engine.insert({
          symbol: slug,
          side: 'SIDE_BUY',
          orderQty: 1,
          price: 10 + Math.floor(Math.random() * 30),
          timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
          account: PARTICIPANT,
        }),
      100,
    );
    try {
      await Promise.all(onEach.map((client) => client.next(() => client.topic(MARKET).length >= 3, 10_000)));
      const lease = await holderOf(MARKET);
      const holder = fleet.findIndex((gateway) => lease.includes(`:${gateway.process.pid}:`));
      expect(holder).toBeGreaterThanOrEqual(0);
      const survivor = fleet[1 - holder];
      const watching = onEach[1 - holder];
      const heldEpoch = watching.topic(MARKET).at(-1).epoch;
      const seen = watching.frames.length;

      fleet[holder].process.kill('SIGKILL');
      const killedAt = Date.now();
      const deadline = LEASE_MS + 1_000;
      const resync = await watching.next(
        (frame) => frame.topic === MARKET && frame.type === 'resync' && frame.epoch !== heldEpoch,
        deadline,
        seen,
      );
      const waitFor = async () => {
        const until = killedAt + deadline;
        while (!(await holderOf(MARKET)).includes(`:${survivor.process.pid}:`) && Date.now() < until)
          await new Promise((r) => setTimeout(r, 50));
        return holderOf(MARKET);
      };
      expect(await waitFor()).toContain(`:${survivor.process.pid}:`);
      // From then on the survivor's clients follow its epoch, seq growing within it.
      await watching.next(
        (frame) => frame.topic === MARKET && frame.epoch !== heldEpoch && frame.seq > resync.seq,
        10_000,
      );
      const after = watching.topic(MARKET).filter((frame: Json) => frame.epoch !== heldEpoch);
      expect(after[0].type).toBe('resync');
      for (let i = 1; i < after.length; i++)
        if (after[i].epoch === after[i - 1].epoch) expect(after[i].seq).toBeGreaterThan(after[i - 1].seq);
    } finally {
      clearInterval(feed);
    }
  });
});
