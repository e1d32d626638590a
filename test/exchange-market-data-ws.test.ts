import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { MetricsRegistry } from '@lib/core';
import { DEFAULT_PROTO_DIR } from '@lib/exchange';

import type { BookEvent } from '../apps/sandbox/src/engine/index.js';
import { PARTICIPANT, type Stack, eventually, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const TOPIC = `exchange.marketData.${SYMBOL}`;
const BIDI = 'BiDirectionalStreamMarketData';
const SERVER_STREAM = 'CreateMarketDataSubscription';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 28 games beyond the fixture's 32 instruments: 60 symbols in all. */
const EXTRA_GAMES = Array.from({ length: 28 }, (_, i) => ({
  league: 'tst',
  away: `a${i}`,
  home: `h${i}`,
  date: '2026-12-01',
}));

/** A book state as the test compares it: the top 10 levels and the transact time (ms). */
function eventView(event: BookEvent): string {
  const side = (levels: BookEvent['bids']) => levels.slice(0, 10).map((l) => [String(l.px), String(l.qty)]);
  return JSON.stringify([side(event.bids), side(event.offers), event.transactTime]);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames are checked by the assertions that read them
function frameView(data: any): string {
  const side = (entries: { px: string; qty: string }[]) => entries.map((e) => [e.px, e.qty]);
  const time = Number(data.transactTime.seconds) * 1000 + data.transactTime.nanos / 1e6;
  return JSON.stringify([side(data.bids), side(data.offers), time]);
}

/** One change of SYMBOL's top levels per call: bids only, so nothing trades. */
function changeBook(stack: Stack, i: number): void {
  stack.sandbox.state.engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    orderQty: 1 + (i % 5),
    price: 30 + (i % 10),
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: PARTICIPANT,
  });
}

async function metricValue(stack: Stack, name: string, labels: Record<string, string> = {}): Promise<number> {
  const values = (await stack.gateway.get(MetricsRegistry).getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

async function subscribed(stack: Stack, topics: string[]): Promise<WsTestClient> {
  const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
  client.send({ type: 'subscribe', id: 's', topics });
  await client.next((f) => f.type === 'ack', 15_000);
  return client;
}

describe('exchange market data on one multiplexed stream', () => {
  it('carries 60 symbols of three /ws clients on a single bidirectional stream', async () => {
    // Each dashboard watches 30 of the symbols: the per-client topic cap (default 10) is raised to fit.
    const stack = await startStack({
      sandbox: { exchange: { extraGames: EXTRA_GAMES } },
      gateway: (config) => ({ ...config, streams: { exchange: { maxTopicsPerClient: 60 } } }),
    });
    const clients: WsTestClient[] = [];
    try {
      const { state } = stack.sandbox;
      const symbols = state.engine.instruments().map((i) => i.symbol);
      expect(symbols).toHaveLength(60);
      const topics = symbols.map((s) => `exchange.marketData.${s}`);
      // Overlapping thirds, opened together: the union is every symbol.
      const sets = [topics.slice(0, 25), topics.slice(20, 45), topics.slice(35, 60)];
      clients.push(...(await Promise.all(sets.map((set) => subscribed(stack, set)))));
      for (const [i, client] of clients.entries()) {
        for (const topic of sets[i]!) expect(client.topic(topic)[0]).toMatchObject({ type: 'snapshot', seq: 1 });
      }
      expect(state.streams.view().byCall).toEqual({ [BIDI]: 1 });
      expect(state.counter(`grpc.streams.opened.${BIDI}`)).toBe(1);
      expect(state.counter(`grpc.streams.opened.${SERVER_STREAM}`)).toBe(0);
      expect(await metricValue(stack, 'gateway_exchange_grpc_symbols_carried')).toBe(60);

      // A symbol of one client only: its book changes reach that client over the shared stream.
      const last = symbols[59]!;
      state.engine.insert({
        symbol: last,
        side: 'SIDE_BUY',
        orderQty: 3,
        price: 41,
        timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
        account: PARTICIPANT,
      });
      const update = await clients[2]!.next((f) => f.topic === `exchange.marketData.${last}` && f.type === 'update');
      expect(update.data.bids[0]).toEqual({ px: '41', qty: '3' });
      expect(state.counter(`grpc.streams.opened.${BIDI}`)).toBe(1);
    } finally {
      for (const client of clients) client.close();
      await stack.close();
    }
  }, 60_000);

  it('keeps its stream over ten 3 s token lifetimes: no reconnect, every book state once and in order', async () => {
    const stack = await startStack({ sandbox: { exchange: { tokenTtlSeconds: 3 } } });
    let client: WsTestClient | undefined;
    try {
      const { state } = stack.sandbox;
      state.marketDataStreams.heartbeatMs = 200; // heartbeats flow all along; none may reach a client
      client = await subscribed(stack, [TOPIC]);
      const produced: string[] = [];
      const stop = state.engine.on('book', (event) => {
        if (event.symbol === SYMBOL) produced.push(eventView(event));
      });
      const tokensBefore = state.counter('token.accepted');
      const until = Date.now() + 31_000;
      for (let i = 0; Date.now() < until; i++) {
        changeBook(stack, i);
        await sleep(40 + (i % 4) * 20);
      }
      stop();
      const frames = await eventually(
        async () => client!.topic(TOPIC),
        (all) => all.length > 0 && frameView(all.at(-1)!.data) === produced.at(-1),
        5_000,
      );

      expect(state.counter('token.accepted') - tokensBefore).toBeGreaterThanOrEqual(9); // the provider renewed its token all along
      expect(frames.map((f) => f.type)).toEqual(['snapshot', ...produced.map(() => 'update')]); // no resync
      expect(frames.map((f) => frameView(f.data)).slice(1)).toEqual(produced); // every state, in order, once
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
      expect(state.counter(`grpc.streams.opened.${BIDI}`)).toBe(1);
      expect(state.counter('grpc.streams.ended.cut')).toBe(0);
      expect(await metricValue(stack, 'gateway_exchange_grpc_stream_reconnects_total')).toBe(0);
    } finally {
      client?.close();
      await stack.close();
    }
  }, 60_000);

  it('resyncs every client when the exchange cuts the stream, then carries on', async () => {
    const stack = await startStack();
    const clients: WsTestClient[] = [];
    try {
      const { state } = stack.sandbox;
      const other = 'aec-nfl-dal-phi-2026-11-22';
      clients.push(await subscribed(stack, [TOPIC, `exchange.marketData.${other}`]), await subscribed(stack, [TOPIC]));
      changeBook(stack, 1);
      await Promise.all(clients.map((c) => c.next((f) => f.topic === TOPIC && f.type === 'update')));

      const cut = await fetch(`${stack.sandbox.urls.exchange}/_sandbox/grpc/streams/cut`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'UNAVAILABLE', call: BIDI }),
      });
      expect(await cut.json()).toEqual({ cut: 1 });
      for (const client of clients) {
        const resync = await client.next((f) => f.topic === TOPIC && f.type === 'resync', 10_000);
        expect(resync.data.bids[0]).toMatchObject({ px: '31' }); // the current book, not an empty one
      }
      await clients[0]!.next((f) => f.topic === `exchange.marketData.${other}` && f.type === 'resync', 10_000);
      changeBook(stack, 7);
      for (const client of clients) {
        const frames = await eventually(
          async () => client.topic(TOPIC),
          (all) => all.at(-1)?.data.bids.some((l: { px: string }) => l.px === '37'),
        );
        expect(frames.map((f) => f.type)).toEqual(['snapshot', 'update', 'resync', 'update']);
        expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4]);
      }
      expect(state.counter(`grpc.streams.opened.${BIDI}`)).toBe(2);
      expect(state.streams.view().byCall).toEqual({ [BIDI]: 1 });
      expect(
        await metricValue(stack, 'gateway_exchange_grpc_stream_reconnects_total', {
          kind: 'marketData',
          code: 'UNAVAILABLE',
        }),
      ).toBe(1);
    } finally {
      for (const client of clients) client.close();
      await stack.close();
    }
  }, 60_000);
});

describe('exchange market data where the bidirectional call is not served', () => {
  it('falls back to CreateMarketDataSubscription streams carrying every symbol', async () => {
    // The sandbox loads protos without BiDirectionalStreamMarketData: the exchange answers UNIMPLEMENTED.
    const protoDir = mkdtempSync(join(tmpdir(), 'protos-'));
    cpSync(DEFAULT_PROTO_DIR, protoDir, { recursive: true });
    const file = join(protoDir, 'polymarket/v1/market_data.proto');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^\s*rpc BiDirectionalStreamMarketData.*$/m, ''));
    const stack = await startStack({ sandbox: { grpc: { protoDir } } });
    const clients: WsTestClient[] = [];
    try {
      const { state } = stack.sandbox;
      const other = `exchange.marketData.aec-nfl-dal-phi-2026-11-22`;
      clients.push(await subscribed(stack, [TOPIC]));
      expect(clients[0]!.topic(TOPIC)[0]).toMatchObject({ type: 'snapshot' });
      clients.push(await subscribed(stack, [other]));
      expect(clients[1]!.topic(other)[0]).toMatchObject({ type: 'snapshot' });
      changeBook(stack, 3);
      await clients[0]!.next((f) => f.topic === TOPIC && f.type === 'update');
      // Adding a symbol reopened the server stream with both; one stream is left.
      await eventually(
        async () => state.streams.view().byCall,
        (byCall) => byCall[SERVER_STREAM] === 1 && byCall[BIDI] === undefined,
      );
      expect(clients[0]!.topic(TOPIC).map((f) => f.type)).toEqual(['snapshot', 'update']); // no resync for the reopen
    } finally {
      for (const client of clients) client.close();
      await stack.close();
      rmSync(protoDir, { recursive: true, force: true });
    }
  }, 60_000);
});
