import { createRedisClient, type RedisClient } from '@lib/core';
import { WebSocket } from 'ws';

import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import {
  OTHER_PARTICIPANT,
  PARTICIPANT,
  RETAIL_KEYS,
  RETAIL_MARKET,
  type Json,
  type Stack,
  api,
  eventually,
  pastGatewayRefusals,
  redisUrl,
  retailBid,
  testJournal,
} from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
  { id: 'reader', scopes: ['read:orders' as const] },
  // Two bots of one team on one participant and one retail account: each one's brake takes its own orders only.
  ...['twin-a', 'twin-b'].map((id) => ({
    id,
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
    retailAccounts: ['main'],
  })),
];
/**
 * The instances of one deployment share one journal (its record of who was given each order: a brake
 * that fires on another instance than the orders entered by reads it there).
 */
const journal = testJournal();
const sharedJournal = (config: GatewayConfigInput): GatewayConfigInput => ({ ...config, journal });
/** Opens /ws with a query; resolves with the socket, or the HTTP status of a refused upgrade. */
function openWs(stack: Stack, client: string, query: string, autoPong = true): Promise<WebSocket | number> {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/ws?${query}`, {
    headers: { authorization: `Bearer ${stack.keys[client]}` },
    autoPong,
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', reject);
  });
}

async function opened(stack: Stack, client: string, query: string, autoPong = true): Promise<WebSocket> {
  const ws = await openWs(stack, client, query, autoPong);
  if (typeof ws === 'number') throw new Error(`upgrade refused with ${ws}`);
  return ws;
}

describe('cancel-on-disconnect for /ws clients', () => {
  let a: Stack;
  let b: Stack;
  let redis: RedisClient;
  const prefix = `cod${process.pid}:`;
  const aliceOpen = () => a.sandbox.state.engine.openOrders(PARTICIPANT).length;
  const allCancelled = () =>
    expect(
      eventually(
        async () => aliceOpen(),
        (n) => n === 0,
        15_000,
      ),
    ).resolves.toBe(0);

  beforeAll(async () => {
    a = await startExchangeStack(CLIENTS, { redis: true, redisKeyPrefix: prefix, gateway: sharedJournal });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      redisKeyPrefix: prefix,
      reuseSandbox: a.sandbox,
      gateway: sharedJournal,
    });
    redis = createRedisClient({
      mode: 'single',
      url: redisUrl(),
      keyPrefix: '',
      commandTimeoutMs: 500,
      connectTimeoutMs: 500,
    });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    redis?.disconnect();
    await b?.close();
    await a?.close();
  });

  async function rest(count: number, tag: string): Promise<void> {
    for (let i = 0; i < count; i++)
      expect(
        (
          await pastGatewayRefusals(() =>
            post(a, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 3 + i, { clordId: `${tag}-${i}` }), 'bot'),
          )
        ).status,
      ).toBe(200);
  }

  it("cancels a bot's open orders once its connection is gone for the grace, and no one else's", async () => {
    const ws = await opened(a, 'bot', 'cancelOnDisconnect=1');
    await rest(3, 'dies');
    const bobs = await pastGatewayRefusals(() =>
      post(a, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 3, { clordId: 'bob-stays' }), 'all', {
        'x-participant-id': OTHER_PARTICIPANT,
      }),
    );
    expect(bobs.status).toBe(200);
    expect(aliceOpen()).toBe(3);
    ws.terminate();
    await allCancelled();
    expect(a.sandbox.state.engine.openOrders(OTHER_PARTICIPANT).map((order) => order.clordId)).toContain('bob-stays');
  });

  it("takes only the dead bot's own orders from a participant and a retail account it shares with a sibling bot", async () => {
    const ws = await opened(a, 'twin-a', 'cancelOnDisconnect=1');
    const place = async (client: string, path: string, body: unknown) => {
      const res = await pastGatewayRefusals(() => post(a, path, body, client));
      expect(res.status).toBe(200);
      return (await res.json()) as { orderId?: string; id?: string };
    };
    await place('twin-a', '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 4, { clordId: 'twin-a-1' }));
    await place('twin-a', '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 5, { clordId: 'twin-a-2' }));
    const twinB = await place(
      'twin-b',
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 6, { clordId: 'twin-b-1' }),
    );
    const retailA = await place('twin-a', '/retail/v1/orders', retailBid('0.11'));
    const retailB = await place('twin-b', '/retail/v1/orders', retailBid('0.12'));
    // The dying bot tries to modify its sibling's retail order (a modify that changes nothing): refused, as
    // a change of an order another client was given (test/walls-change-others-order.test.ts). Before that
    // wall, its 200 counted as given, and the sibling's order was cancelled (a probe).
    const modified = await pastGatewayRefusals(() =>
      post(a, `/retail/v1/order/${retailB.id}/modify`, { marketSlug: RETAIL_MARKET }, 'twin-a'),
    );
    expect(modified.status).toBe(403);
    const exchangeOpen = () =>
      a.sandbox.state.engine
        .openOrders(PARTICIPANT)
        .map((order) => order.clordId)
        .filter((clordId) => clordId?.startsWith('twin-'))
        .sort();
    const retailOpen = () =>
      a.sandbox.state.engine
        .openOrders(RETAIL_KEYS.main)
        .map((order) => order.id)
        .filter((id) => id === retailA.id || id === retailB.id);
    expect(exchangeOpen()).toEqual(['twin-a-1', 'twin-a-2', 'twin-b-1']);
    expect(retailOpen()).toHaveLength(2);
    ws.terminate();
    await eventually(
      async () => ({ exchange: exchangeOpen(), retail: retailOpen() }),
      (open) => open.exchange.length === 1 && open.retail.length === 1,
      15_000,
    );
    // The run is over once its record is on the journal (its cancels run side by side: a look before could
    // see the sibling's order not yet cancelled).
    await eventually(
      async () => (await (await api(a, 'twin-a')(`/orders/timeline?orderId=${retailA.id}`)).json()) as Json,
      (timeline) =>
        Array.isArray(timeline.records) &&
        timeline.records.some(
          (record: Json) => record.kind === 'admin' && record.data?.action === 'cancel-on-disconnect',
        ),
      15_000,
    );
    expect(exchangeOpen()).toEqual(['twin-b-1']);
    expect(retailOpen()).toEqual([retailB.id]);
    // The sibling's orders go too, so the tests after this one count only their own.
    const cancelled = await pastGatewayRefusals(() =>
      post(a, '/exchange/v1/trading/orders/cancel', { orderId: twinB.orderId }, 'twin-b'),
    );
    expect(cancelled.status).toBe(200);
    const retailCancelled = await pastGatewayRefusals(() =>
      post(a, `/retail/v1/order/${retailB.id}/cancel`, { marketSlug: RETAIL_MARKET }, 'twin-b'),
    );
    expect(retailCancelled.status).toBe(200);
  });

  it("cancels a hung bot's orders (its socket open, its pings unanswered) within two pings and the grace, and keeps a live sibling's", async () => {
    // A client that answers no ping is a bot whose process stopped (SIGSTOP, a spin) with its TCP connection
    // open: nothing closes the socket, so only the gateway's ping can tell. Before, one ping every 30 s made
    // that 30-60 s plus the grace.
    const hung = await opened(a, 'twin-a', 'cancelOnDisconnect=1', false);
    const live = await opened(a, 'twin-b', 'cancelOnDisconnect=1');
    for (const [client, clordId] of [
      ['twin-a', 'hung-1'],
      ['twin-b', 'live-1'],
    ] as const)
      expect(
        (
          await pastGatewayRefusals(() =>
            post(a, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 4, { clordId }), client),
          )
        ).status,
      ).toBe(200);
    const open = () =>
      a.sandbox.state.engine
        .openOrders(PARTICIPANT)
        .map((order) => order.clordId)
        .filter((clordId) => clordId === 'hung-1' || clordId === 'live-1')
        .sort();
    expect(open()).toEqual(['hung-1', 'live-1']);
    const started = Date.now();
    // Two 5 s pings, a grace of 1 s and a 250 ms poll: about 11.3 s at most on a quiet machine; the bound is
    // generous for a busy one, and well under the 31 s the old 30 s ping needed at the least.
    const left = await eventually(
      async () => open(),
      (now) => !now.includes('hung-1'),
      25_000,
    );
    console.log(`hung bot's orders cancelled ${Date.now() - started} ms after it stopped answering`);
    expect(left).toEqual(['live-1']);
    expect(hung.readyState).not.toBe(WebSocket.OPEN);
    // The sibling answered its pings all along: connected, its order resting.
    expect(live.readyState).toBe(WebSocket.OPEN);
    live.close();
    await eventually(
      async () => open(),
      (now) => now.length === 0,
      15_000,
    );
  }, 60_000);

  /** Log lines of both instances written after `from` (each test reads only its own). */
  const logsSince = (from: { a: number; b: number }) => [...a.logs.slice(from.a), ...b.logs.slice(from.b)];
  const mark = () => ({ a: a.logs.length, b: b.logs.length });
  const logged = (from: { a: number; b: number }, text: string | RegExp) =>
    eventually(
      async () => logsSince(from).some((line) => (typeof text === 'string' ? line.includes(text) : text.test(line))),
      (seen) => seen,
      20_000,
    );

  it('cancels nothing when the bot reconnects within the grace, even to another instance', async () => {
    const from = mark();
    const ws = await opened(a, 'bot', 'cancelOnDisconnect=2');
    await rest(2, 'resumes');
    ws.terminate();
    await logged(from, 'cancel-on-disconnect of bot: its grace');
    const again = await opened(b, 'bot', 'cancelOnDisconnect=2');
    // b took the grace back: nothing of the bot is due anywhere, so no instance fires.
    await logged(from, 'cancel-on-disconnect of bot: resumed within the grace');
    expect(await redis.zscore(`${prefix}{risk}:cod-due`, 'bot')).toBeNull();
    expect(aliceOpen()).toBe(2);
    again.close();
    await allCancelled();
  });

  it('cancels nothing while the bot still holds a connection on another instance, and fires once the last is gone', async () => {
    const from = mark();
    const onA = await opened(a, 'bot', 'cancelOnDisconnect=1');
    const onB = await opened(b, 'bot', 'cancelOnDisconnect=1');
    try {
      await rest(2, 'both');
      onA.terminate();
      // The bot is still connected to b: b's claim renewal calls a's grace off (this instance), or the
      // instance that takes the lapsed grace sees b's renewed claim (another instance). Nothing cancelled.
      await logged(from, /cancel-on-disconnect of bot: still connected to (another|this) instance/);
      expect(aliceOpen()).toBe(2);
    } finally {
      onB.terminate();
    }
    await allCancelled();
  });

  it('hands a grace over when the instance shuts down: another instance cancels a bot that does not come back', async () => {
    const c = await startExchangeStack(CLIENTS, {
      redis: true,
      redisKeyPrefix: prefix,
      reuseSandbox: a.sandbox,
      gateway: sharedJournal,
    });
    try {
      await opened(c, 'bot', 'cancelOnDisconnect=1');
      await rest(2, 'handed');
    } finally {
      // A graceful stop closes the bot's socket itself; before, the grace died with the instance and nothing fired.
      await c.close();
    }
    await allCancelled();
  });

  it('asks write:orders and a grace of 1 to 300 seconds', async () => {
    expect(await openWs(a, 'reader', 'cancelOnDisconnect=5')).toBe(403);
    expect(await openWs(a, 'bot', 'cancelOnDisconnect=0')).toBe(400);
    expect(await openWs(a, 'bot', 'cancelOnDisconnect=soon')).toBe(400);
    for (const loose of ['0x10', '1e2', '%205'])
      expect(await openWs(a, 'bot', `cancelOnDisconnect=${loose}`)).toBe(400); // Number() would take each
  });
});
