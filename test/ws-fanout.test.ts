import { FanoutHub } from '@lib/fanout';

import { PARTICIPANT, type Stack, eventually, startStack } from './support/stack.js';
import { WsTestClient, seqGaps } from './support/ws-client.js';

const CLIENTS = 500; // issue 7: 500 clients over 10 topics
const TOPICS = 10;
const ROUNDS = 20;

/** The first `count` open engine symbols; a retail market slug is its engine symbol. */
function openSymbols(stack: Stack, count: number): string[] {
  const open = stack.sandbox.state.engine
    .instruments()
    .filter((instrument) => instrument.state === 'INSTRUMENT_STATE_OPEN');
  return open.slice(0, count).map((instrument) => instrument.symbol);
}

/** One book change: a resting bid, at a price that changes each round so every round is a new book. */
function bid(stack: Stack, symbol: string, round: number): void {
  const price = 10 + (round % 40);
  stack.sandbox.state.engine.insert({
    symbol,
    side: 'SIDE_BUY',
    orderQty: 1,
    price,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: PARTICIPANT,
  });
}

async function subscribed(url: string, key: string, topic: string): Promise<WsTestClient> {
  const client = await WsTestClient.open(url, { key });
  client.send({ type: 'subscribe', id: topic, topics: [topic] });
  await client.next((frame) => frame.type === 'ack', 10_000);
  return client;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('/ws fan-out on one gateway', () => {
  let stack: Stack;
  let clients: WsTestClient[] = [];
  beforeAll(async () => {
    // 500 sockets of one test client: far past the per-client connection cap real clients get.
    stack = await startStack({ gateway: (config) => ({ ...config, streams: { maxConnectionsPerClient: 1_000 } }) });
  });
  afterEach(() => {
    clients.forEach((client) => client.close());
    clients = [];
  });
  afterAll(() => stack.close());

  it(`gives ${CLIENTS} clients on ${TOPICS} topics every frame in order, from one upstream subscription per topic`, async () => {
    const symbols = openSymbols(stack, TOPICS);
    expect(symbols).toHaveLength(TOPICS);
    const topicOf = (i: number) => `retail.marketData.${symbols[i % TOPICS]}`;
    for (let i = 0; i < CLIENTS; i += 20) {
      const batch = Array.from({ length: 20 }, (_, j) => subscribed(stack.url, stack.keys.all, topicOf(i + j)));
      clients.push(...(await Promise.all(batch)));
    }
    expect(stack.sandbox.state.retail.activeSubscriptions()).toBe(TOPICS);

    for (let round = 0; round < ROUNDS; round++) {
      symbols.forEach((symbol) => bid(stack, symbol, round));
      await pause(10); // a paced feed: market data conflates for slow clients, and this test wants none
    }
    const hub = stack.gateway.get(FanoutHub);
    await eventually(
      async () => clients.filter((c, i) => c.topic(topicOf(i)).at(-1)?.seq !== hub.info(topicOf(i))?.seq).length,
      (late) => late === 0,
      10_000,
    );
    clients.forEach((client, i) => {
      const frames = client.topic(topicOf(i));
      expect(seqGaps(frames)).toEqual([]);
      expect(frames.length).toBe(ROUNDS + 1);
    });
    expect(stack.sandbox.state.retail.activeSubscriptions()).toBe(TOPICS);
  });

  it('sends resync after the upstream drops, then keeps numbering without duplicates', async () => {
    const [symbol] = openSymbols(stack, TOPICS).slice(-1);
    const topic = `retail.marketData.${symbol}`;
    clients = await Promise.all(Array.from({ length: 5 }, () => subscribed(stack.url, stack.keys.all, topic)));
    for (let round = 0; round < 3; round++) bid(stack, symbol, round);
    await Promise.all(clients.map((client) => client.next(() => client.topic(topic).length >= 4)));

    expect(stack.sandbox.state.dropRetailWebSockets()).toBeGreaterThan(0);
    await Promise.all(
      clients.map((client) => client.next((frame) => frame.type === 'resync' && frame.topic === topic, 5_000)),
    );
    for (let round = 3; round < 6; round++) bid(stack, symbol, round);
    await Promise.all(clients.map((client) => client.next(() => client.topic(topic).length >= 8)));

    for (const client of clients) {
      const frames = client.topic(topic);
      expect(seqGaps(frames)).toEqual([]);
      expect(frames.map((f) => f.type)).toEqual([
        'snapshot',
        'snapshot',
        'snapshot',
        'snapshot',
        'resync',
        'snapshot',
        'snapshot',
        'snapshot',
      ]);
    }
  });
});

describe('/ws fan-out across two gateways sharing Redis', () => {
  let a: Stack;
  let b: Stack;
  const clients: WsTestClient[] = [];
  beforeAll(async () => {
    const redisKeyPrefix = `t${process.pid}:ws:${Math.random().toString(36).slice(2, 8)}:`;
    a = await startStack({ redis: true, redisKeyPrefix });
    b = await startStack({ redis: true, redisKeyPrefix, reuseSandbox: a.sandbox });
  });
  afterAll(async () => {
    clients.forEach((client) => client.close());
    await b.close();
    await a.close();
  });

  it('gives clients on both the same frames, from one upstream subscription per topic', async () => {
    const symbols = openSymbols(a, 2);
    const topics = symbols.map((symbol) => `retail.marketData.${symbol}`);
    for (const topic of topics) {
      clients.push(await subscribed(a.url, a.keys.all, topic), await subscribed(b.url, b.keys.all, topic));
    }
    expect(a.sandbox.state.retail.activeSubscriptions()).toBe(topics.length);

    for (let round = 0; round < 5; round++) {
      symbols.forEach((symbol) => bid(a, symbol, round));
      await pause(10);
    }
    for (const [i, topic] of topics.entries()) {
      const [onA, onB] = [clients[2 * i], clients[2 * i + 1]];
      const last = (client: WsTestClient) => client.topic(topic).at(-1);
      await eventually(
        async () => [last(onA)?.seq, last(onB)?.seq],
        ([x, y]) => x !== undefined && x === y && onA.topic(topic).length >= 6,
        10_000,
      );
      const tail = (client: WsTestClient) =>
        client
          .topic(topic)
          .slice(-5)
          .map((f) => ({ seq: f.seq, data: f.data }));
      expect(tail(onB)).toEqual(tail(onA));
      expect(seqGaps(onA.topic(topic))).toEqual([]);
      expect(seqGaps(onB.topic(topic))).toEqual([]);
    }
    expect(a.sandbox.state.retail.activeSubscriptions()).toBe(topics.length);
  });

  it('accepts on one instance a ticket issued by the other, once', async () => {
    const res = await fetch(`${a.url}/ws/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.keys.all}` },
    });
    const { ticket } = (await res.json()) as { ticket: string };
    clients.push(await WsTestClient.open(b.url, { ticket }));
    await expect(WsTestClient.open(a.url, { ticket })).rejects.toMatchObject({ status: 401 });
  });
});
