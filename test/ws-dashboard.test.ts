import { PARTICIPANT, type Json, type Stack, api, eventually, json, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

/**
 * Fan-out sized for dashboards (issue 25 item 5), with the gateway's default stream settings: a
 * dashboard backend serves its browsers through the tickets it mints, on one instance; one client
 * watches 100 market-data symbols (they ride one multiplexed upstream stream and spend its team's
 * symbols, not a small per-client count); a ticket narrowed by its minter opens only what it names.
 *
 * @runs-alone: its 500 connections' tickets (Redis, the tests' 500 ms command timeout) are the load it
 * judges; beside another file's stacks on two cores, a ticket answered late was a 503 (ci33).
 */
const BROWSERS = 500;
const BATCH = 50;
const BIDI = 'BiDirectionalStreamMarketData';
/** 70 games beyond the fixture's 32 instruments: more than 100 symbols. */
const EXTRA_GAMES = Array.from({ length: 70 }, (_, i) => ({
  league: 'tst',
  away: `a${i}`,
  home: `h${i}`,
  date: '2026-12-01',
}));

let stack: Stack;
let symbols: string[];
const marketData = (i: number) => `exchange.marketData.${symbols[i]}`;

beforeAll(async () => {
  stack = await startStack({
    redis: true,
    sandbox: { exchange: { extraGames: EXTRA_GAMES } },
    clients: [
      { id: 'dashboard', team: 'trading', scopes: ['read:marketdata', 'read:orders'], participants: [PARTICIPANT] },
    ],
  });
  symbols = stack.sandbox.state.engine.instruments().map((instrument) => instrument.symbol);
}, 60_000);
afterAll(() => stack?.close());

async function mint(body?: unknown): Promise<Response> {
  return api(stack, 'dashboard')('/ws/tickets', {
    method: 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function browser(topics?: string[]): Promise<WsTestClient> {
  const res = await mint(topics ? { topics } : undefined);
  expect(res.status).toBe(201);
  return WsTestClient.open(stack.url, { ticket: (await json(res)).ticket });
}

/** The topic's first frame once it is a snapshot, or what came first instead (undefined: nothing within 15 s). */
async function snapshotOf(client: WsTestClient, topic: string) {
  await client.next((frame) => frame.topic === topic && frame.type === 'snapshot', 15_000).catch(() => undefined);
  return client.topic(topic)[0];
}

/** Runs `task` for 0..n-1, `BATCH` at a time. */
async function inBatches<T>(n: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < n; start += BATCH) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, n - start) }, (_, k) => task(start + k)))));
  }
  return results;
}

describe('fan-out sized for dashboards, with the default stream settings', () => {
  it(`serves ${BROWSERS} browser connections through one client's tickets on one instance, each with its snapshot`, async () => {
    const browsers: WsTestClient[] = [];
    try {
      // Five screens' worth of markets, a hundred browsers on each.
      const outcomes = await inBatches(BROWSERS, async (i) => {
        const topic = marketData(i % 5);
        const client = await browser([topic]).catch((error: unknown) => error);
        if (!(client instanceof WsTestClient)) return { i, refused: String(client) };
        browsers.push(client);
        const answer = await client.subscribe([topic]);
        // The ack may come before the first snapshot when it is slow (a starved machine): the snapshot still comes.
        const first = await snapshotOf(client, topic);
        return { i, answer: answer.type, snapshot: first?.type };
      });
      const failed = outcomes.filter(
        (outcome) => !('answer' in outcome) || outcome.answer !== 'ack' || outcome.snapshot !== 'snapshot',
      );
      expect(failed.slice(0, 5)).toEqual([]);
      expect(outcomes).toHaveLength(BROWSERS);
      // All of them ride one upstream market-data stream.
      expect(stack.sandbox.state.streams.view().byCall).toEqual({ [BIDI]: 1 });
    } finally {
      browsers.forEach((client) => client.close());
    }
  }, 120_000);

  it('lets one client watch 100 market-data symbols on one connection, all on one upstream stream', async () => {
    const client = await WsTestClient.open(stack.url, { key: stack.keys.dashboard });
    try {
      const topics = Array.from({ length: 100 }, (_, i) => marketData(i));
      client.send({ type: 'subscribe', id: 'wall', topics });
      // One answer per topic: the ack names those granted, an error frame each one refused.
      const answered = () =>
        new Set(client.frames.filter((f) => f.id === 'wall').flatMap((f) => (f.type === 'ack' ? f.topics : [f.topic])));
      await eventually(
        async () => answered().size,
        (size) => size === topics.length,
        30_000,
      );
      expect(client.frames.filter((frame) => frame.type === 'error')).toEqual([]);
      const firsts = await Promise.all(topics.map((topic) => snapshotOf(client, topic)));
      expect(topics.filter((_, i) => firsts[i]?.type !== 'snapshot')).toEqual([]);
      // A stream the first test's browsers left may still be ending; the symbols settle on one.
      await eventually(
        async () => stack.sandbox.state.streams.view().byCall,
        (byCall) => JSON.stringify(byCall) === JSON.stringify({ [BIDI]: 1 }),
        10_000,
      );
    } finally {
      client.close();
    }
  }, 60_000);

  it('refuses a topic outside a narrowed ticket with a forbidden error naming it, and serves the ones it names', async () => {
    const res = await mint({ topics: [marketData(0)] });
    expect(res.status).toBe(201);
    const issued = await json(res);
    const client = await WsTestClient.open(stack.url, { ticket: issued.ticket });
    try {
      expect(await client.subscribe([marketData(1)])).toMatchObject({
        type: 'error',
        code: 'forbidden',
        topic: marketData(1),
        message: expect.stringContaining(marketData(1)),
      });
      expect(await client.subscribe([marketData(0)])).toMatchObject({ type: 'ack', topics: [marketData(0)] });
      expect(await snapshotOf(client, marketData(0))).toMatchObject({ type: 'snapshot' });
      expect(client.topic(marketData(1))).toEqual([]);
      expect(issued.topics).toEqual([marketData(0)]);
    } finally {
      client.close();
    }
  });

  it('narrows a ticket to a topic family by its syntax: any market data, no orders', async () => {
    const client = await browser(['exchange.marketData.<symbol>']);
    try {
      const orders = `exchange.orders.${PARTICIPANT}`;
      expect(await client.subscribe([orders])).toMatchObject({ type: 'error', code: 'forbidden', topic: orders });
      expect(await client.subscribe([marketData(7)])).toMatchObject({ type: 'ack', topics: [marketData(7)] });
    } finally {
      client.close();
    }
  });

  it('refuses a ticket body naming no topic the endpoint serves with a 400 naming the entry, issuing nothing', async () => {
    const res = await mint({ topics: [marketData(0), 'exchange.everything'] });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem: Json = await json(res);
    expect(problem).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [expect.objectContaining({ path: 'body.topics.1' })],
    });
    expect(problem.ticket).toBeUndefined();
  });
});
