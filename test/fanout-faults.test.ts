import { type RedisClient, createRedisClient } from '@lib/core';
import { FanoutHub, type FrameMessage, type TopicPolicy, TopicSourceRegistry } from '@lib/fanout';
import { Registry } from 'prom-client';

import { FakeSource, HubServer, TestClient, eventually, mergeFold } from '../libs/fanout/src/testing/hub.fixture.js';
import { startRedisServer } from './support/redis-server.js';
import { StallProxy } from './support/stall-proxy.js';

// Issue 18, item 4: the fan-out keeps its promises through Redis faults. Two or three in-process
// instances (hub + ws server + client each) share a private redis-server, each through its own proxy
// so one instance's Redis can be cut or stalled alone. Lease and heartbeat timings are the defaults.

const MARKET = 'test.market.alpha';
const ACCOUNT = 'test.account.orders';

/** Account-like: nothing conflated, a replay window, and a snapshot that says which updates it holds. */
const ACCOUNT_TEST_POLICY: TopicPolicy = {
  conflate: false,
  replayWindow: { messages: 1_000, ms: 60_000 },
  fold: mergeFold((snapshot, update) => ({
    upTo: Math.max((snapshot as { upTo: number }).upTo, (update as { n: number }).n),
  })),
};
const MARKET_TEST_POLICY: TopicPolicy = { conflate: true };

/**
 * The upstream every instance subscribes to: one numbered event stream per topic, sent to every open
 * subscription (two instances holding a topic at once both see it, as with the real upstream).
 * An opening subscription first gets a snapshot of everything so far.
 */
class Upstream {
  n = 0;
  readonly sources: FakeSource[] = [];
  private timer: NodeJS.Timeout | undefined;

  source(): FakeSource {
    const source = new FakeSource();
    source.onOpen = (_, sink) => sink.snapshot({ upTo: this.n });
    this.sources.push(source);
    return source;
  }

  start(everyMs = 20): void {
    this.timer = setInterval(() => this.emit(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private emit(): void {
    this.n += 1;
    for (const source of this.sources)
      for (const topic of [MARKET, ACCOUNT]) if (source.isOpen(topic)) source.sink(topic).update({ n: this.n });
  }
}

interface Instance {
  name: string;
  proxy: StallProxy;
  redis: RedisClient;
  source: FakeSource;
  hub: FanoutHub;
  server: HubServer;
  clients: TestClient[];
}

type Frame = FrameMessage & { epoch?: string };

/**
 * What every client of a topic must see: within an epoch seq only grows; a new epoch arrives only as a
 * `resync`; and no two frames of one epoch and seq differ anywhere (one holder per epoch).
 */
function violations(clients: TestClient[], topic: string): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [c, client] of clients.entries()) {
    const frames = client.of(topic) as Frame[];
    for (const [i, frame] of frames.entries()) {
      if (frame.epoch === undefined) problems.push(`client ${c}: frame ${frame.seq} has no epoch`);
      const key = `${frame.epoch}/${frame.seq}`;
      const text = JSON.stringify([frame.type === 'update', frame.data]);
      if (frame.type !== 'resync' && seen.has(key) && seen.get(key) !== text)
        problems.push(`client ${c}: two frames at ${key}`);
      if (frame.type !== 'resync') seen.set(key, text);
      const previous = frames[i - 1] as Frame | undefined;
      if (!previous) continue;
      if (previous.epoch === frame.epoch && frame.seq <= previous.seq)
        problems.push(`client ${c}: seq ${previous.seq} → ${frame.seq} in epoch ${frame.epoch}`);
      if (previous.epoch !== frame.epoch && frame.type !== 'resync')
        problems.push(`client ${c}: epoch ${previous.epoch} → ${frame.epoch} by a ${frame.type}`);
    }
  }
  return problems;
}

/** The account updates a client holds: a snapshot or resync holds 1..upTo, an update adds its n. */
function heldUpdates(frames: FrameMessage[]): number[] {
  let held = new Set<number>();
  for (const frame of frames) {
    const data = frame.data as { upTo?: number; n?: number };
    if (frame.type === 'update') held.add(data.n as number);
    else held = new Set(Array.from({ length: data.upTo ?? 0 }, (_, i) => i + 1));
  }
  return [...held].sort((x, y) => x - y);
}

const lastEpoch = (client: TestClient, topic: string) => (client.of(topic).at(-1) as Frame | undefined)?.epoch;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fan-out through Redis faults', () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let upstream: Upstream;
  let keyPrefix: string;
  const instances: Instance[] = [];

  async function instance(name: string): Promise<Instance> {
    const proxy = await StallProxy.start(redis.port);
    const client = createRedisClient({
      mode: 'single',
      url: proxy.url,
      keyPrefix: '',
      commandTimeoutMs: 200,
      connectTimeoutMs: 500,
    });
    client.on('error', () => undefined);
    const source = upstream.source();
    const sources = new TopicSourceRegistry()
      .register('test.market.', source, MARKET_TEST_POLICY)
      .register('test.account.', source, ACCOUNT_TEST_POLICY);
    const hub = new FanoutHub({
      sources,
      redis: client,
      registry: new Registry(),
      lingerMs: 200,
      cluster: { keyPrefix, instanceId: name },
    });
    const server = await HubServer.start(hub);
    const created: Instance = { name, proxy, redis: client, source, hub, server, clients: [] };
    instances.push(created);
    return created;
  }

  async function subscriber(on: Instance, ...topics: string[]): Promise<TestClient> {
    const client = await TestClient.connect(on.server.url);
    for (const topic of topics) await client.subscribe(topic);
    on.clients.push(client);
    return client;
  }

  /** `a` holds the market topic, `b` relays it; the flow runs and has reached b's client. */
  async function holderAndRelay() {
    const a = await instance('a');
    const b = await instance('b');
    const onA = await subscriber(a, MARKET);
    const onB = await subscriber(b, MARKET);
    upstream.start();
    await onB.until(() => onB.of(MARKET).length >= 5, 'relayed frames');
    return { a, b, onA, onB };
  }

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  beforeEach(() => {
    upstream = new Upstream();
    keyPrefix = `test:faults:${Math.random().toString(36).slice(2)}:`;
  });
  afterEach(async () => {
    upstream.stop();
    for (const { clients, server, hub, redis: client, proxy } of instances.splice(0)) {
      clients.forEach((c) => c.close());
      await server.close();
      await hub.close();
      proxy.restore();
      await client.quit().catch(() => client.disconnect());
      await proxy.close();
    }
  });
  afterAll(() => {
    redis.process.kill('SIGKILL');
  });

  it('a relay that loses Redis takes the topic locally within 2 s and sends its clients a resync', async () => {
    const { b, onA, onB } = await holderAndRelay();
    expect(b.source.opened).toEqual([]);

    b.proxy.cut();
    const before = onB.of(MARKET).length;
    await onB.until(
      () =>
        onB
          .of(MARKET)
          .slice(before)
          .some((f) => f.type === 'resync'),
      'a resync on the relay that lost Redis',
      2_000,
    );
    expect(b.source.isOpen(MARKET)).toBe(true);
    await onB.until(() => onB.of(MARKET).length >= before + 10, 'frames from its local upstream');
    expect(violations([onA, onB], MARKET)).toEqual([]);
  });

  it('a relay that hears nothing from a stalled holder takes over within 2 s; the holder fences itself: never two holders in one epoch', async () => {
    const { a, b, onA, onB } = await holderAndRelay();
    const heldEpoch = lastEpoch(onA, MARKET);

    a.proxy.stall(); // Redis answers the holder no more: every command times out
    const before = onB.of(MARKET).length;
    await onB.until(
      () =>
        onB
          .of(MARKET)
          .slice(before)
          .some((f) => f.type === 'resync'),
      'a resync on the relay of a silent holder',
      2_000,
    );
    // The holder cannot renew: before its lease can lapse it stops serving the epoch it held.
    await onA.until(() => lastEpoch(onA, MARKET) !== heldEpoch, 'the stalled holder to leave its epoch', 3_000);
    await pause(1_000);
    a.proxy.restore();
    // Back to one holder for the cluster: both instances on the same epoch, from then on the same frames.
    await eventually(
      () => lastEpoch(onA, MARKET) !== undefined && lastEpoch(onA, MARKET) === lastEpoch(onB, MARKET),
      'both instances on one epoch',
      10_000,
    );
    upstream.stop();
    expect(violations([onA, onB], MARKET)).toEqual([]);
    expect(a.source.isOpen(MARKET) && b.source.isOpen(MARKET)).toBe(false);
  });

  it('Redis stopped for 5 s under a steady flow: clients keep receiving or resync, seq never goes back in an epoch, account topics lose nothing', async () => {
    const a = await instance('a');
    const b = await instance('b');
    const clients = [
      await subscriber(a, MARKET, ACCOUNT),
      await subscriber(b, MARKET, ACCOUNT),
      await subscriber(b, MARKET, ACCOUNT),
    ];
    upstream.start();
    await eventually(() => clients.every((c) => c.of(ACCOUNT).length >= 5), 'the flow to reach every client');

    redis.process.kill('SIGKILL');
    // A client drops during the outage and comes back after it with resumeFrom (epoch and seq).
    const leaving = clients.pop() as TestClient;
    await pause(2_500);
    const gone = leaving.of(ACCOUNT) as Frame[];
    leaving.close();
    for (const [i, client] of clients.entries()) {
      const count = client.of(ACCOUNT).length;
      await client.until(
        () => client.of(ACCOUNT).length > count + 5,
        `client ${i} to keep receiving during the outage`,
        2_000,
      );
    }
    await pause(2_500);
    redis = await startRedisServer(redis.port); // empty: nothing recorded survives

    const back = await TestClient.connect(b.server.url);
    b.clients.push(back);
    const last = gone.at(-1) as Frame;
    await back.subscribe(ACCOUNT, { epoch: last.epoch as string, seq: last.seq });
    clients.push(back);
    await eventually(
      () =>
        lastEpoch(clients[0], ACCOUNT) !== undefined &&
        clients.every((c) => lastEpoch(c, ACCOUNT) === lastEpoch(clients[0], ACCOUNT)),
      'one epoch again',
      15_000,
    );
    upstream.stop();
    await eventually(
      () => clients.every((c) => heldUpdates([...(c === back ? gone : []), ...c.of(ACCOUNT)]).length === upstream.n),
      'every account update held by every client',
      5_000,
    ).catch(() => undefined);

    for (const topic of [MARKET, ACCOUNT]) expect(violations(clients.slice(0, 2), topic)).toEqual([]);
    expect(violations([back], ACCOUNT)).toEqual([]);
    const all = Array.from({ length: upstream.n }, (_, i) => i + 1);
    for (const client of clients.slice(0, 2)) expect(heldUpdates(client.of(ACCOUNT))).toEqual(all);
    expect(heldUpdates([...gone, ...back.of(ACCOUNT)])).toEqual(all);
  });
});
