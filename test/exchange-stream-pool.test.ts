import { MetricsRegistry } from '@lib/core';

import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, api, json, startStack } from './support/stack.js';
import { WsClients } from './support/ws-client.js';

/**
 * Every exchange topic that holds an upstream stream claims one of the firm's streams (the `exchange`
 * pool), whatever its kind: firmStreams 5 less a reserve of 1 (the market-data stream) leaves 4, all
 * of them the platform team's share.
 */
const FIRM_STREAMS = 5;
const CAP = FIRM_STREAMS - 1;
let stack: Stack;
const clients = new WsClients();

beforeAll(async () => {
  stack = await startStack({
    clients: [
      { id: 'desk', team: 'platform', scopes: ['read:dropcopy', 'read:orders', 'read:instruments'] },
      { id: 'bot', team: 'trading', scopes: ['read:dropcopy'] },
    ],
    gateway: (config) => ({
      ...config,
      streams: { exchange: { firmStreams: FIRM_STREAMS, reserve: 1, teamShares: { platform: CAP } } },
    }),
  });
});
afterAll(async () => {
  clients.closeAll();
  await stack.close();
});

describe("the firm's exchange streams on /ws", () => {
  it('counts drop copy, trades, orders and positions topics by kind and refuses one more with too_many_streams naming the cap', async () => {
    const desk = await clients.connect(stack, 'desk');
    const held = [
      'exchange.dropcopy',
      'exchange.trades',
      `exchange.orders.${PARTICIPANT}`,
      `exchange.positions.${PARTICIPANT}`,
    ];
    expect(await desk.subscribe(held)).toMatchObject({ type: 'ack', topics: held });

    // A second participant's orders ride the same upstream call, but the pool counts topics (never fewer than the streams open).
    const more = `exchange.orders.${OTHER_PARTICIPANT}`;
    expect(await desk.subscribe([more])).toMatchObject({
      type: 'error',
      code: 'too_many_streams',
      topic: more,
      cap: 'team',
      limit: CAP,
    });
    expect(await desk.subscribe(['exchange.instrumentState'])).toMatchObject({
      type: 'error',
      code: 'too_many_streams',
      cap: 'team',
      limit: CAP,
    });

    // Another team joins a held topic at no cost; a new one is past its share (none).
    const bot = await clients.connect(stack, 'bot');
    expect(await bot.subscribe(['exchange.dropcopy'])).toMatchObject({ type: 'ack' });
    expect(await bot.subscribe([`exchange.positions.${OTHER_PARTICIPANT}`])).toMatchObject({
      type: 'error',
      code: 'too_many_streams',
      cap: 'team',
      limit: 0,
    });

    const limits = await api(stack)('/admin/limits');
    expect(limits.status).toBe(200);
    expect((await json(limits)).streams).toContainEqual({
      pool: 'exchange',
      capacity: CAP,
      inUse: CAP,
      byKind: { dropCopy: 1, trades: 1, orders: 1, positions: 1 },
      byTeam: { platform: { share: CAP, inUse: CAP }, trading: { share: 0, inUse: 0 } },
    });
    const gauge = await stack.gateway.get(MetricsRegistry).getSingleMetric('gateway_streams_in_use')?.get();
    const inUse = Object.fromEntries(
      (gauge?.values ?? []).filter((v) => v.labels.pool === 'exchange').map((v) => [v.labels.kind, v.value]),
    );
    expect(inUse).toMatchObject({ dropCopy: 1, trades: 1, orders: 1, positions: 1 });
    // What the exchange itself counts: within the firm's streams.
    const upstream = Object.values(stack.sandbox.state.streams.view().byCall).reduce((sum, n) => sum + n, 0);
    expect(upstream).toBe(CAP);
  }, 30_000);
});
