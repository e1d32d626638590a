import { randomUUID } from 'node:crypto';

import { type RedisClient, createRedisClient } from '@lib/core';

import { StreamCapacityUnavailableError } from '../fanout.error.js';
import { eventually } from '../testing/hub.fixture.js';
import { MemoryStreamLedger } from './memory.stream-ledger.js';
import { RedisStreamLedger } from './redis.stream-ledger.js';
import { type CapacitySettings, type HeldTopic, type StreamLedger, decideClaim } from './stream-capacity.types.js';

const POOL = 'exchange';
const KIND = 'marketData';
const A1 = { client: 'a1', team: 'A' };
const A2 = { client: 'a2', team: 'A' };
const B1 = { client: 'b1', team: 'B' };
const settings: CapacitySettings = {
  pools: { [POOL]: { capacity: 5, teamShares: { A: 2, B: 3 }, clientTopics: 3, clientOverrides: { b2: 1 } } },
  holdingTtlMs: 600,
  renewEveryMs: 100,
};
const topic = (n: number) => `exchange.marketData.s${n}`;
/** One instance's A left s1 while B holds it on the other: s1 is B's, s2 still A's. */
const CHARGED_AFTER_A_LEFT = { A: { share: 2, inUse: 1 }, B: { share: 3, inUse: 1 } };
const claim = (sut: StreamLedger, n: number, holder = A1) => sut.claim(POOL, KIND, topic(n), holder);

describe(decideClaim.name, () => {
  const limits = settings.pools[POOL];
  const live = (...teams: string[]) =>
    new Map<string, HeldTopic>(teams.map((team, i) => [topic(i), { kind: KIND, team }]));

  it('charges nothing for a topic already held, whichever team holds it', () => {
    expect(decideClaim(limits, live('B', 'B', 'B'), new Set(), topic(0), 'A')).toEqual({ granted: true });
  });

  it('refuses a new topic past the team share, naming the share', () => {
    expect(decideClaim(limits, live('A', 'A'), new Set(), topic(9), 'A')).toEqual({
      granted: false,
      cap: 'team',
      limit: 2,
    });
    expect(decideClaim(limits, live('A', 'A'), new Set(), topic(9), 'B')).toEqual({ granted: true });
  });

  it('refuses a new topic when the pool is full, even within the team share', () => {
    expect(decideClaim({ ...limits, capacity: 4 }, live('A', 'B', 'B', 'B'), new Set(), topic(9), 'A')).toEqual({
      granted: false,
      cap: 'firm',
      limit: 4,
    });
  });

  it('refuses a client its fourth distinct topic but not one it already holds', () => {
    const mine = new Set([topic(0), topic(1), topic(2)]);
    expect(decideClaim(limits, live('B', 'B', 'B'), mine, topic(3), 'A')).toEqual({
      granted: false,
      cap: 'client',
      limit: 3,
    });
    expect(decideClaim(limits, live('B', 'B', 'B'), mine, topic(1), 'A')).toEqual({ granted: true });
  });

  it('holds a client with a cap of its own to that cap instead of the pool default', () => {
    const mine = new Set([topic(0), topic(1), topic(2)]);
    const own = { ...limits, clientOverrides: { wide: 4, narrow: 1 } };
    expect(decideClaim(own, live('B', 'B', 'B'), mine, topic(3), 'A', 'wide')).toEqual({ granted: true });
    expect(decideClaim(own, live('B'), new Set([topic(0)]), topic(3), 'A', 'narrow')).toEqual({
      granted: false,
      cap: 'client',
      limit: 1,
    });
    expect(decideClaim(own, live('B', 'B', 'B'), mine, topic(3), 'A', 'other')).toEqual({
      granted: false,
      cap: 'client',
      limit: 3,
    });
  });

  it('gives a team not in the shares nothing', () => {
    expect(decideClaim(limits, live(), new Set(), topic(0), 'C')).toEqual({ granted: false, cap: 'team', limit: 0 });
  });
});

/** The rules every ledger keeps, in memory and on Redis alike. */
function ledgerRules(make: () => StreamLedger | Promise<StreamLedger>) {
  let sut: StreamLedger;
  beforeEach(async () => (sut = await make()));
  afterEach(() => sut.close());

  it('counts streams, not subscriptions: a held topic costs nothing more', async () => {
    expect(await claim(sut, 1, B1)).toEqual({ granted: true });
    expect(await claim(sut, 1, A1)).toEqual({ granted: true });
    expect(await claim(sut, 1, A2)).toEqual({ granted: true });
    const [usage] = await sut.usage();
    expect(usage).toEqual({
      pool: POOL,
      capacity: 5,
      inUse: 1,
      byKind: { [KIND]: 1 },
      byTeam: { A: { share: 2, inUse: 0 }, B: { share: 3, inUse: 1 } },
    });
  });

  it('holds a team to its share while the other team still opens its own', async () => {
    expect(await claim(sut, 1, A1)).toEqual({ granted: true });
    expect(await claim(sut, 2, A2)).toEqual({ granted: true });
    expect(await claim(sut, 3, A2)).toEqual({ granted: false, cap: 'team', limit: 2 });
    expect(await claim(sut, 3, B1)).toEqual({ granted: true });
  });

  it('refuses the pool once full', async () => {
    for (const n of [1, 2]) expect(await claim(sut, n, A1)).toEqual({ granted: true });
    for (const n of [3, 4, 5])
      expect(await claim(sut, n, n === 5 ? { client: 'b2', team: 'B' } : B1)).toEqual({ granted: true });
    expect((await sut.usage())[0].inUse).toBe(5);
    expect(await claim(sut, 6, { client: 'b3', team: 'B' })).toEqual({ granted: false, cap: 'team', limit: 3 });
  });

  it('caps distinct topics per client, and frees a slot when the client leaves a topic', async () => {
    await claim(sut, 1, A1); // charged to A: B's share is not what refuses b1 below
    for (const n of [1, 2, 3]) await claim(sut, n, B1);
    expect(await claim(sut, 4, B1)).toEqual({ granted: false, cap: 'client', limit: 3 });
    expect(await claim(sut, 2, B1)).toEqual({ granted: true }); // a second connection on a topic it holds
    sut.leave(POOL, topic(2), B1.client);
    expect(await claim(sut, 4, B1)).toEqual({ granted: false, cap: 'client', limit: 3 }); // one connection still holds s2
    sut.leave(POOL, topic(2), B1.client);
    expect(await eventuallyGranted(() => claim(sut, 4, B1))).toEqual({ granted: true });
  });

  it('holds a client with a cap of its own to it, beside the default of the others', async () => {
    const B2 = { client: 'b2', team: 'B' };
    expect(await claim(sut, 1, B2)).toEqual({ granted: true });
    expect(await claim(sut, 2, B2)).toEqual({ granted: false, cap: 'client', limit: 1 });
    expect(await claim(sut, 2, B1)).toEqual({ granted: true });
  });

  it("moves a topic's charge to a team still holding it once the opening team's last client leaves", async () => {
    expect(await claim(sut, 1, B1)).toEqual({ granted: true });
    expect(await claim(sut, 2, B1)).toEqual({ granted: true });
    expect(await claim(sut, 3, B1)).toEqual({ granted: true });
    // A watches what B opened (free), then B's client leaves: A must not keep B's share taken.
    for (const n of [1, 2, 3]) expect(await claim(sut, n, A1)).toEqual({ granted: true });
    for (const n of [1, 2, 3]) sut.leave(POOL, topic(n), B1.client);
    expect(await eventuallyGranted(() => claim(sut, 4, B1))).toEqual({ granted: true });
    expect((await sut.usage())[0].byTeam).toEqual({ A: { share: 2, inUse: 3 }, B: { share: 3, inUse: 1 } });
    // A now holds more than its share: a new topic of its own is refused, one already held is not.
    expect(await claim(sut, 5, A2)).toEqual({ granted: false, cap: 'team', limit: 2 });
    expect(await claim(sut, 1, A2)).toEqual({ granted: true });
  });

  it("moves a lingering topic's charge to the team whose client joins it", async () => {
    expect(await claim(sut, 1, A1)).toEqual({ granted: true });
    expect(await claim(sut, 2, A1)).toEqual({ granted: true });
    // A's client leaves both; the streams linger (not released), still charged to A.
    for (const n of [1, 2]) sut.leave(POOL, topic(n), A1.client);
    for (const n of [1, 2]) expect(await claim(sut, n, B1)).toEqual({ granted: true });
    // B holds them now, A nothing: A's share is its own again (before, the memory ledger kept A charged).
    expect(await eventuallyGranted(() => claim(sut, 3, A1))).toEqual({ granted: true });
    expect((await sut.usage())[0].byTeam).toEqual({ A: { share: 2, inUse: 1 }, B: { share: 3, inUse: 2 } });
  });

  it('returns a stream to the team once the topic is released', async () => {
    await claim(sut, 1, A1);
    await claim(sut, 2, A1);
    expect(await claim(sut, 3, A2)).toMatchObject({ granted: false, cap: 'team' });
    sut.leave(POOL, topic(1), A1.client);
    sut.release(POOL, topic(1));
    expect(await eventuallyGranted(() => claim(sut, 3, A2))).toEqual({ granted: true });
    expect((await sut.usage())[0].byTeam.A).toEqual({ share: 2, inUse: 2 });
  });
}

/** A release reaches Redis a moment after the call returns. */
async function eventuallyGranted(attempt: () => ReturnType<StreamLedger['claim']>) {
  let outcome = await attempt();
  await eventually(async () => (outcome = await attempt()).granted, 'the claim to be granted', 3_000);
  return outcome;
}

describe(MemoryStreamLedger.name, () => {
  ledgerRules(() => new MemoryStreamLedger(settings.pools));
});

describe(RedisStreamLedger.name, () => {
  let prefix: string;
  const clients: RedisClient[] = [];
  const ledgers: RedisStreamLedger[] = [];

  /** Connected: the gateway's client refuses commands while it connects (no offline queue). */
  async function redisClient(): Promise<RedisClient> {
    const client = createRedisClient({
      mode: 'single',
      url: process.env.TEST_REDIS_URL as string,
      keyPrefix: '',
      commandTimeoutMs: 2_000,
      connectTimeoutMs: 2_000,
    });
    client.on('error', () => undefined);
    clients.push(client);
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    return client;
  }
  async function instance(name: string, redis?: RedisClient): Promise<RedisStreamLedger> {
    const ledger = new RedisStreamLedger(redis ?? (await redisClient()), settings, prefix, name);
    ledgers.push(ledger);
    return ledger;
  }

  beforeEach(() => (prefix = `test:streams:${randomUUID()}:`));
  afterEach(async () => {
    await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
    await Promise.all(
      clients.splice(0).map((client) => (client.status === 'end' ? undefined : client.quit().catch(() => undefined))),
    );
  });

  describe('on one instance', () => {
    ledgerRules(() => instance('solo'));
  });

  it('counts a topic held by two instances once, until both let it go', async () => {
    const [one, two] = [await instance('one'), await instance('two')];
    await claim(one, 1, A1);
    await claim(two, 1, B1);
    await claim(one, 2, A1);
    expect(await claim(two, 3, A2)).toMatchObject({ granted: false, cap: 'team', limit: 2 });
    one.leave(POOL, topic(1), A1.client);
    one.release(POOL, topic(1));
    // Still held by the other instance: the stream stays open, once, now charged to B, whose client
    // still holds it (A no longer does: B's watching must not keep A's share taken).
    await eventually(
      async () => JSON.stringify((await two.usage())[0].byTeam) === JSON.stringify(CHARGED_AFTER_A_LEFT),
      'the charge to move to B',
    );
    expect((await two.usage())[0].inUse).toBe(2);
    expect(await claim(two, 3, A2)).toEqual({ granted: true });
    two.leave(POOL, topic(1), B1.client);
    two.release(POOL, topic(1));
    await eventually(async () => (await two.usage())[0].inUse === 2, 'the last release to land');
  });

  it("moves the charge when the opening team's last client leaves on another instance than the holder's", async () => {
    const [one, two] = [await instance('one'), await instance('two')];
    await claim(one, 1, A1);
    await claim(one, 2, A1);
    await claim(two, 1, B1);
    await claim(two, 2, B1);
    one.leave(POOL, topic(1), A1.client);
    one.leave(POOL, topic(2), A1.client);
    // Instance one still holds both streams upstream (the linger), B watches them on two: charged to B.
    expect(await eventuallyGranted(() => claim(one, 3, A2))).toEqual({ granted: true });
    expect((await one.usage())[0].byTeam).toEqual({ A: { share: 2, inUse: 1 }, B: { share: 3, inUse: 2 } });
  });

  it('keeps a live instance holdings past their expiry by renewing them', async () => {
    const one = await instance('one');
    await claim(one, 1, A1);
    await claim(one, 2, A1);
    await new Promise((resolve) => setTimeout(resolve, settings.holdingTtlMs * 3));
    expect(await claim(await instance('two'), 3, A2)).toMatchObject({ granted: false, cap: 'team' });
  });

  it('lets a crashed instance holdings lapse, so its streams come back', async () => {
    const crashed = await redisClient();
    const one = await instance('crashed', crashed);
    await claim(one, 1, A1);
    await claim(one, 2, A1);
    const two = await instance('two');
    expect(await claim(two, 3, A2)).toMatchObject({ granted: false, cap: 'team' });
    crashed.disconnect(); // no renewal and no release: only the expiry can free its streams
    expect(await eventuallyGranted(() => claim(two, 3, A2))).toEqual({ granted: true });
    // The crashed instance's two holdings were taken at two moments and lapse at two: the claim is granted
    // once the first has; the second follows within the same TTL (a CI run read it between the two).
    const lapsedBy = Date.now() + settings.holdingTtlMs * 3;
    let inUse = (await two.usage())[0].byTeam.A;
    while (inUse.inUse !== 1 && Date.now() < lapsedBy) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      inUse = (await two.usage())[0].byTeam.A;
    }
    expect(inUse).toEqual({ share: 2, inUse: 1 });
  });

  it('refuses a new stream while Redis is unreachable, but not a topic the client already holds here', async () => {
    const redis = await redisClient();
    const sut = await instance('one', redis);
    await claim(sut, 1, A1);
    redis.disconnect();
    await expect(claim(sut, 2, A1)).rejects.toBeInstanceOf(StreamCapacityUnavailableError);
    expect(await claim(sut, 1, A1)).toEqual({ granted: true });
  });
});
