import { Clock } from '@lib/core';

import { PARTICIPANT, type Stack, api, json, startStack } from './support/stack.js';
import { RefusedUpgrade, WsTestClient, seqGaps } from './support/ws-client.js';

const slug = 'aec-nba-mil-phi-2026-11-21';
const topic = `retail.marketData.${slug}`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    clients: [
      { id: 'md', scopes: ['read:marketdata'] },
      { id: 'main-only', scopes: ['read:orders', 'read:positions', 'write:orders'], retailAccounts: ['main'] },
      { id: 'flood', scopes: ['read:marketdata'] },
    ],
  });
});
afterAll(() => stack.close());

/** The HTTP status an upgrade was refused with, or 101 when it was accepted. */
async function upgradeStatus(options: { key?: string; ticket?: string }): Promise<number> {
  try {
    (await WsTestClient.open(stack.url, options)).close();
    return 101;
  } catch (error) {
    if (error instanceof RefusedUpgrade) return error.status;
    throw error;
  }
}

async function ticket(clientId = 'all'): Promise<string> {
  const res = await api(stack, clientId)('/ws/tickets', { method: 'POST' });
  expect(res.status).toBe(201);
  return (await json(res)).ticket;
}

const bid = (price: number) =>
  stack.sandbox.state.engine.insert({
    symbol: slug,
    side: 'SIDE_BUY',
    orderQty: 1,
    price,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: PARTICIPANT,
  });

describe('/ws upgrade', () => {
  it('refuses an upgrade without credentials, or with a bad key, with 401', async () => {
    expect(await upgradeStatus({})).toBe(401);
    expect(await upgradeStatus({ key: 'not-a-key' })).toBe(401);
    expect(await upgradeStatus({ ticket: 'made-up' })).toBe(401);
    expect(await upgradeStatus({ key: stack.keys.all })).toBe(101);
  });

  it('accepts a ticket once, then refuses it with 401', async () => {
    const issued = await ticket();
    expect(await upgradeStatus({ ticket: issued })).toBe(101);
    expect(await upgradeStatus({ ticket: issued })).toBe(401);
  });

  it('refuses a ticket older than 30 s with 401', async () => {
    const issued = await ticket();
    const clock = stack.gateway.get(Clock);
    const later = Date.now() + 31_000;
    // The in-memory store reads the gateway's Clock: move it past the ticket's 30 s.
    clock.now = () => later;
    try {
      expect(await upgradeStatus({ ticket: issued })).toBe(401);
    } finally {
      Reflect.deleteProperty(clock, 'now');
    }
  });

  it('issues tickets only to an authenticated caller (401)', async () => {
    expect((await fetch(`${stack.url}/ws/tickets`, { method: 'POST' })).status).toBe(401);
  });

  it('serves the AsyncAPI document without a key', async () => {
    const res = await fetch(`${stack.url}/docs/ws`);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ asyncapi: '3.0.0', channels: { stream: { address: '/ws' } } });
  });
});

describe('/ws protocol', () => {
  it('sends a snapshot, an ack, then a frame per book change with consecutive seq', async () => {
    const sut = await WsTestClient.open(stack.url, { ticket: await ticket() });
    try {
      sut.send({ type: 'subscribe', id: 's1', topics: [topic] });
      expect(await sut.next((f) => f.type === 'ack')).toEqual({ type: 'ack', id: 's1', topics: [topic] });
      expect(sut.topic(topic)[0]).toMatchObject({ type: 'snapshot', topic, data: { stream: 'marketData' } });
      for (const price of [11, 12, 13]) bid(price);
      const frames = await waitForFrames(sut, topic, 4);
      expect(seqGaps(frames)).toEqual([]);
      // Retail market data carries the whole book each time, so every frame is a snapshot (libs/retail).
      expect(frames.map((f) => f.type)).toEqual(['snapshot', 'snapshot', 'snapshot', 'snapshot']);
    } finally {
      sut.close();
    }
  });

  it('serves exchange market data on the same socket', async () => {
    const sut = await WsTestClient.open(stack.url, { key: stack.keys.md });
    try {
      sut.send({ type: 'subscribe', id: 'x', topics: [`exchange.marketData.${slug}`] });
      expect(await sut.next((f) => f.type === 'ack', 10_000)).toMatchObject({
        topics: [`exchange.marketData.${slug}`],
      });
      expect(sut.topic(`exchange.marketData.${slug}`)[0]).toMatchObject({ type: 'snapshot', seq: 1 });
    } finally {
      sut.close();
    }
  });

  it('refuses topics the client has no scope for, naming the scope', async () => {
    const sut = await WsTestClient.open(stack.url, { key: stack.keys.md });
    try {
      sut.send({ type: 'subscribe', id: 's2', topics: ['retail.orders', 'retail.balances'] });
      expect(await sut.next((f) => f.topic === 'retail.orders')).toMatchObject({
        type: 'error',
        id: 's2',
        code: 'forbidden',
        missingScope: 'read:orders',
      });
      expect(await sut.next((f) => f.topic === 'retail.balances')).toMatchObject({
        type: 'error',
        code: 'forbidden',
        missingScope: 'read:positions',
      });
    } finally {
      sut.close();
    }
  });

  it("serves a named retail account's topics to a client allowed it, with that account's orders only", async () => {
    const order = (headers: Record<string, string>) =>
      api(stack)('/retail/v1/orders', {
        method: 'POST',
        headers,
        body: JSON.stringify({
          marketSlug: slug,
          intent: 'ORDER_INTENT_BUY_LONG',
          price: { value: '0.03', currency: 'USD' },
          quantity: 1,
        }),
      });
    const topics = ['retail.account.hedge.orders', 'retail.account.hedge.balances'];
    const sut = await WsTestClient.open(stack.url, { key: stack.keys.all });
    const placed: [string, string][] = [];
    try {
      sut.send({ type: 'subscribe', id: 'h', topics });
      expect(await sut.next((f) => f.type === 'ack', 10_000)).toEqual({ type: 'ack', id: 'h', topics });
      expect(sut.topic('retail.account.hedge.balances')[0]).toMatchObject({ type: 'snapshot' });
      const onMain = (await json(await order({ 'x-retail-account': 'main' }))).id as string;
      const onHedge = (await json(await order({ 'x-retail-account': 'hedge' }))).id as string;
      placed.push(['main', onMain], ['hedge', onHedge]);
      await sut.next(
        (f) =>
          f.topic === 'retail.account.hedge.orders' && f.type === 'update' && JSON.stringify(f.data).includes(onHedge),
        10_000,
      );
      expect(JSON.stringify(sut.topic('retail.account.hedge.orders'))).not.toContain(onMain);
    } finally {
      sut.close();
      for (const [account, id] of placed) {
        await api(stack)(`/retail/v1/order/${id}/cancel`, {
          method: 'POST',
          headers: { 'x-retail-account': account },
          body: JSON.stringify({ marketSlug: slug }),
        });
      }
    }
  });

  it('refuses the topics of a retail account the client may not use, naming the account', async () => {
    const sut = await WsTestClient.open(stack.url, { key: stack.keys['main-only'] });
    try {
      sut.send({
        type: 'subscribe',
        id: 'm',
        topics: ['retail.account.hedge.positions', 'retail.account.main.positions'],
      });
      expect(await sut.next((f) => f.topic === 'retail.account.hedge.positions')).toMatchObject({
        type: 'error',
        id: 'm',
        code: 'forbidden',
        message: expect.stringContaining('hedge'),
      });
      expect(await sut.next((f) => f.type === 'ack', 10_000)).toEqual({
        type: 'ack',
        id: 'm',
        topics: ['retail.account.main.positions'],
      });
    } finally {
      sut.close();
    }
  });

  it('answers malformed frames with an error frame, and ping with pong', async () => {
    const sut = await WsTestClient.open(stack.url, { key: stack.keys.all });
    try {
      sut.send('{not json');
      sut.send({ type: 'hello', id: 'h' });
      sut.send({ type: 'subscribe', id: 'b', topics: ['retail.nothing'] });
      sut.send({ type: 'subscribe', id: 'big', topics: Array.from({ length: 101 }, (_, i) => `retail.trade.m${i}`) });
      sut.send({ type: 'ping', id: 'p' });
      await sut.next((f) => f.type === 'pong');
      expect(sut.frames).toEqual([
        expect.objectContaining({ type: 'error', code: 'bad_request', message: 'the frame is not JSON' }),
        expect.objectContaining({ type: 'error', id: 'h', code: 'bad_request' }),
        expect.objectContaining({ type: 'error', id: 'b', code: 'unknown_topic', topic: 'retail.nothing' }),
        expect.objectContaining({ type: 'error', id: 'big', code: 'bad_request' }),
        { type: 'pong', id: 'p' },
      ]);
    } finally {
      sut.close();
    }
  });

  it('closes a connection sending more than 50 frames a second with 1008, after an error frame', async () => {
    const sut = await WsTestClient.open(stack.url, { key: stack.keys.all });
    for (let i = 0; i < 60; i++) sut.send({ type: 'ping' });
    expect(await sut.closed()).toBe(1008);
    expect(sut.frames.filter((f) => f.type === 'pong')).toHaveLength(50);
    expect(sut.frames.at(-1)).toMatchObject({ type: 'error', code: 'rate_limited' });
  });

  it("bounds a client's frames over all its connections by its inbound rate: each frame over it refused with an error frame, no connection closed, other clients untouched", async () => {
    // 60 connections under the per-connection bound (49 frames each): 2,940 frames against the client's
    // default inbound rate (burst 1,000, 500/s), the one its HTTP requests spend.
    const started = performance.now();
    const floods = await Promise.all(
      Array.from({ length: 60 }, () => WsTestClient.open(stack.url, { key: stack.keys.flood })),
    );
    try {
      floods.forEach((sut, c) => Array.from({ length: 49 }, (_, i) => sut.send({ type: 'ping', id: `${c}-${i}` })));
      await Promise.all(floods.map((sut) => sut.next(() => sut.frames.length >= 49, 15_000)));
      const seconds = (performance.now() - started) / 1000;
      const frames = floods.flatMap((sut) => sut.frames);
      const pongs = frames.filter((f) => f.type === 'pong');
      const refused = frames.filter((f) => f.type === 'error');
      expect(pongs.length + refused.length).toBe(60 * 49); // every frame answered
      expect(refused.length).toBeGreaterThan(0);
      expect(pongs.length).toBeLessThanOrEqual(1_000 + 500 * seconds);
      for (const frame of refused) {
        expect(frame).toMatchObject({ code: 'rate_limited', id: expect.stringMatching(/^\d+-\d+$/) });
        expect(frame.message).toContain('inbound.perClientPerSecond');
      }
      expect(floods.every((sut) => sut.closeCode === undefined)).toBe(true);
      // Another client's frames are not this client's rate.
      const other = await WsTestClient.open(stack.url, { key: stack.keys.md });
      other.send({ type: 'ping', id: 'other' });
      expect(await other.next((f) => f.id === 'other' || f.type === 'error')).toEqual({ type: 'pong', id: 'other' });
      other.close();
    } finally {
      floods.forEach((sut) => sut.close());
    }
  });

  it('closes a connection sending a frame over 64 KiB with 1009', async () => {
    const sut = await WsTestClient.open(stack.url, { key: stack.keys.all });
    sut.send({ type: 'ping', id: 'x'.repeat(70 * 1024) });
    expect(await sut.closed()).toBe(1009);
  });
});

async function waitForFrames(client: WsTestClient, name: string, count: number): Promise<Record<string, unknown>[]> {
  await client.next(() => client.topic(name).length >= count);
  return client.topic(name);
}

describe('/ws behind a proxy (server.trustProxy)', () => {
  it('counts failed logins per forwarded client address, as the HTTP routes do, and never refuses a valid key', async () => {
    const proxied = await startStack({
      gateway: (config) => ({
        ...config,
        server: { ...config.server, trustProxy: true, trustedProxies: ['127.0.0.0/8', '10.0.0.0/8'] },
        inbound: { ...config.inbound, failedAuthPerIpPerMinute: 2 },
      }),
    });
    // The client writes what it likes on the left; the proxy (10.0.0.1) appends the address it saw.
    const statusFrom = async (key: string, client: string, forged = '192.0.2.1') => {
      try {
        (
          await WsTestClient.open(proxied.url, {
            key,
            headers: { 'x-forwarded-for': `${forged}, ${client}, 10.0.0.1` },
          })
        ).close();
        return 101;
      } catch (error) {
        if (error instanceof RefusedUpgrade) return error.status;
        throw error;
      }
    };
    try {
      const guessing = [];
      // A new key and a new forged left-most address each time: neither dodges the per-address count.
      for (let i = 0; i < 3; i++)
        guessing.push(
          await statusFrom(`pmgw_guess${i}-guess-guess-guess-guess-000`, '203.0.113.7', `192.0.2.${i + 10}`),
        );
      expect(guessing).toEqual([401, 401, 429]);
      // Only the guessing address is slowed down, and only its failures: the right key is always admitted.
      expect(await statusFrom('pmgw_other-other-other-other-other-000', '198.51.100.9')).toBe(401);
      expect(await statusFrom(proxied.keys.all, '198.51.100.9')).toBe(101);
      expect(await statusFrom(proxied.keys.all, '203.0.113.7')).toBe(101);
    } finally {
      await proxied.close();
    }
  });
});
