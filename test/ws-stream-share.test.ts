import { MetricsRegistry } from '@lib/core';

import { freePort } from './support/redis-server.js';
import { type Json, type Stack, api, eventually, json, startStack } from './support/stack.js';
import { RefusedUpgrade, WsTestClient } from './support/ws-client.js';

/**
 * The firm's exchange capacity is shared, not first-come (issue 14 item 2): two gateways on one Redis
 * and one sandbox, each team held to its share cluster-wide. Market-data topics ride one multiplexed
 * stream per holding instance, so what they spend is the firm's market-data symbols, one per topic.
 */
const SHARES = { platform: 2, trading: 2 };
const SYMBOLS = 4;
const MAX_TOPICS_PER_CLIENT = 3;
const MAX_CONNECTIONS = 3;
const clients = [
  { id: 'a1', team: 'platform', scopes: ['read:marketdata' as const] },
  { id: 'a2', team: 'platform', scopes: ['read:marketdata' as const] },
  { id: 'b1', team: 'trading', scopes: ['read:marketdata' as const] },
  { id: 'conn', team: 'trading', scopes: ['read:marketdata' as const] },
];

let one: Stack;
let two: Stack;
let symbols: string[];
const open: WsTestClient[] = [];
const topic = (i: number) => `exchange.marketData.${symbols[i]}`;

beforeAll(async () => {
  const redisKeyPrefix = `t${process.pid}:share:${Math.random().toString(36).slice(2, 8)}:`;
  const gateway = (config: Json) => ({
    ...config,
    // Market data has no per-client count by default (the team's share binds); b1 has a cap of its own.
    streams: {
      maxConnectionsPerClient: MAX_CONNECTIONS,
      clients: { b1: { maxMarketDataSymbols: MAX_TOPICS_PER_CLIENT } },
      exchange: { marketDataSymbols: SYMBOLS, teamSymbolShares: SHARES },
    },
  });
  one = await startStack({ redis: true, redisKeyPrefix, clients, gateway });
  two = await startStack({ redis: true, redisKeyPrefix, clients, gateway, reuseSandbox: one.sandbox });
  symbols = one.sandbox.state.engine
    .instruments()
    .filter((instrument) => instrument.state === 'INSTRUMENT_STATE_OPEN')
    .slice(0, 6)
    .map((instrument) => instrument.symbol);
});
afterAll(async () => {
  open.forEach((client) => client.close());
  await two?.close();
  await one?.close();
});

async function connect(stack: Stack, clientId: string): Promise<WsTestClient> {
  const client = await WsTestClient.open(stack.url, { key: stack.keys[clientId] });
  open.push(client);
  return client;
}

/** Sends one subscribe and resolves with the ack or the error frame that answers it. */
function subscribe(client: WsTestClient, topics: string[]): Promise<Json> {
  return client.subscribe(topics);
}

/** Market-data streams open at the exchange: one multiplexed stream per gateway holding any symbol. */
const firmStreams = () => Object.values(one.sandbox.state.streams.view().byCall).reduce((sum, n) => sum + n, 0);

describe('exchange stream shares across two gateways', () => {
  it('holds team A to its share while team B opens its own, counting symbols, not subscriptions', async () => {
    const a1 = await connect(one, 'a1');
    expect(await subscribe(a1, [topic(0), topic(1)])).toMatchObject({ type: 'ack', topics: [topic(0), topic(1)] });

    // The other gateway: team A's share is already taken cluster-wide.
    const a2 = await connect(two, 'a2');
    expect(await subscribe(a2, [topic(2)])).toMatchObject({
      type: 'error',
      code: 'too_many_streams',
      topic: topic(2),
      cap: 'team',
      limit: 2,
    });
    // A topic already held upstream costs nothing more.
    expect(await subscribe(a2, [topic(0)])).toMatchObject({ type: 'ack', topics: [topic(0)] });

    const b1 = await connect(two, 'b1');
    expect(await subscribe(b1, [topic(2)])).toMatchObject({ type: 'ack', topics: [topic(2)] });
    expect(a2.topic(topic(0))[0]).toMatchObject({ type: 'snapshot' });
    expect(firmStreams()).toBe(2); // three symbols, one stream on each gateway that holds some

    // b1 holds three distinct topics (two of them charged to team A); a fourth is its own cap (streams.clients.b1).
    expect(await subscribe(b1, [topic(0), topic(1)])).toMatchObject({ type: 'ack' });
    const refused = await subscribe(b1, [topic(3)]);
    expect(refused).toMatchObject({
      type: 'error',
      code: 'too_many_streams',
      cap: 'client',
      limit: MAX_TOPICS_PER_CLIENT,
    });
    expect(refused.message).toContain(String(MAX_TOPICS_PER_CLIENT));
    expect(firmStreams()).toBe(2);
  });

  it('shows the symbols in use by kind and by team in /admin/limits and the metrics', async () => {
    for (const stack of [one, two]) {
      const res = await api(stack)('/admin/limits');
      expect(res.status).toBe(200);
      expect((await json(res)).streams).toEqual(
        expect.arrayContaining([
          {
            pool: 'exchange.symbols',
            capacity: SYMBOLS,
            inUse: 3,
            byKind: { marketData: 3 },
            byTeam: { platform: { share: 2, inUse: 2 }, trading: { share: 2, inUse: 1 } },
          },
        ]),
      );
    }
    const registry = two.gateway.get(MetricsRegistry);
    const values = async (name: string) =>
      (await registry.getSingleMetric(name)?.get())?.values.map((v) => [v.labels, v.value]);
    expect(await values('gateway_streams_in_use')).toEqual(
      expect.arrayContaining([[{ pool: 'exchange.symbols', kind: 'marketData' }, 3]]),
    );
    expect(await values('gateway_streams_team_in_use')).toEqual(
      expect.arrayContaining([
        [{ pool: 'exchange.symbols', team: 'platform' }, 2],
        [{ pool: 'exchange.symbols', team: 'trading' }, 1],
      ]),
    );
  });

  it('gives a symbol back to its team once the topic is left and its linger ends', async () => {
    const [a1, a2, b1] = open;
    // Every holder of topic(1) leaves it; topic(0) stays held by a1 and a2.
    for (const client of [a1, b1]) {
      client.send({ type: 'unsubscribe', id: 'leave', topics: [topic(1)] });
      await client.next((frame) => frame.type === 'ack' && frame.id === 'leave');
    }
    const granted = await eventually(
      () => subscribe(a2, [topic(4)]),
      (frame) => frame.type === 'ack',
      20_000,
      250,
    );
    expect(granted).toMatchObject({ topics: [topic(4)] });
    await eventually(
      async () => firmStreams(),
      (streams) => streams === 2,
      5_000,
    );
  });
});

describe('WebSocket connections per client', () => {
  it('refuses the connection past the cap with a 429 problem before the handshake, and admits again once one closes', async () => {
    const held = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await connect(one, 'conn'));
    const refused = await WsTestClient.open(one.url, { key: one.keys.conn }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RefusedUpgrade);
    const { status, headers, body } = refused as RefusedUpgrade;
    expect(status).toBe(429);
    expect(headers['content-type']).toBe('application/problem+json');
    expect(Number(headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(body)).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      cap: 'connections',
      limit: MAX_CONNECTIONS,
    });
    // The cap is per instance: the other gateway admits the same client.
    open.push(await WsTestClient.open(two.url, { key: two.keys.conn }));

    held[0].close();
    await eventually(
      () =>
        WsTestClient.open(one.url, { key: one.keys.conn }).then(
          (client) => (open.push(client), 101),
          (error: RefusedUpgrade) => error.status,
        ),
      (status) => status === 101,
    );
  });
});

describe('exchange streams while Redis cannot count them', () => {
  let stack: Stack;
  beforeAll(async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    stack = await startStack({
      redis: true,
      gateway: (config: Json) => ({ ...config, redis: { ...config.redis, url: unreachable } }),
    });
  });
  afterAll(() => stack?.close());

  it('refuses a new exchange stream rather than admit it blind, and opens nothing upstream', async () => {
    const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
    open.push(client);
    const symbol = stack.sandbox.state.engine
      .instruments()
      .find((instrument) => instrument.state === 'INSTRUMENT_STATE_OPEN')?.symbol;
    const refused = await subscribe(client, [`exchange.marketData.${symbol}`]);
    expect(refused).toMatchObject({
      type: 'error',
      code: 'upstream_failed',
      message: expect.stringContaining('Stream capacity cannot be counted'),
    });
    expect(stack.sandbox.state.marketDataStreams.openStreams()).toBe(0);
  });
});
