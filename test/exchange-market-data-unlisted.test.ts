import { MetricsRegistry } from '@lib/core';

import { SYMBOL, counterpartyBids, post, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, type Json, json, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

/**
 * Every symbol an instance streams rides one multiplexed market-data stream, and the exchange ends
 * that stream (INVALID_ARGUMENT) when asked for a symbol it does not list. Before, one client with
 * `read:marketdata` alone could so end the stream under every other team's topics (a resync each
 * time) by subscribing to made-up symbols, and a banded order on a made-up symbol did the same. Now a
 * symbol the instrument list does not name never reaches the stream.
 */
const TOPIC = `exchange.marketData.${SYMBOL}`;
const BIDI = 'BiDirectionalStreamMarketData';
const BOGUS = ['bogus-1', 'bogus-2', 'zz-bogus-1', 'aec-nfl-nobody-2026-01-01'];

const clients = [
  { id: 'viewer', team: 'platform', scopes: ['read:marketdata' as const] },
  { id: 'prober', team: 'trading', scopes: ['read:marketdata' as const] },
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];

let stack: Stack;
let viewer: WsTestClient;
let prober: WsTestClient;
let bid = 30;

beforeAll(async () => {
  stack = await startStack({
    clients,
    gateway: (config) => ({ ...config, risk: { limits: [{ scope: 'team', id: 'trading', priceBand: 0.05 }] } }),
  });
  viewer = await WsTestClient.open(stack.url, { key: stack.keys.viewer });
  expect(await viewer.subscribe([TOPIC])).toMatchObject({ type: 'ack', topics: [TOPIC] });
  prober = await WsTestClient.open(stack.url, { key: stack.keys.prober });
});
afterAll(async () => {
  viewer?.close();
  prober?.close();
  await stack?.close();
});

async function metricValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const values = (await stack.gateway.get(MetricsRegistry).getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

/** Another firm's bid one cent higher: the viewer's topic must carry it as an update (the stream still flows). */
function bookMoves(): Promise<Json> {
  bid += 1;
  return counterpartyBids(stack, viewer, bid);
}

/** What must not change while another team probes: one stream opened, never ended, never reconnected. */
async function expectViewerUntouched(): Promise<void> {
  expect(viewer.topic(TOPIC).map((frame) => frame.type)).not.toContain('resync');
  expect(viewer.frames.filter((frame) => frame.type === 'error')).toEqual([]);
  const { state } = stack.sandbox;
  expect(state.counter(`grpc.streams.opened.${BIDI}`)).toBe(1);
  expect(state.counter('grpc.marketData.ended.invalid_argument')).toBe(0);
  expect(state.streams.view().byCall).toEqual({ [BIDI]: 1 });
  expect(await metricValue('gateway_exchange_grpc_stream_reconnects_total', { kind: 'marketData' })).toBe(0);
}

describe('a symbol the exchange does not list never reaches the shared market-data stream', () => {
  it("refuses another team's /ws subscribe to unlisted symbols for those topics alone: the viewer's topic keeps flowing", async () => {
    await bookMoves();
    const sent = upstreamCalls(stack);
    for (let round = 0; round < 3; round++) {
      for (const symbol of BOGUS) {
        const topic = `exchange.marketData.${symbol}`;
        expect(await prober.subscribe([topic])).toMatchObject({
          type: 'error',
          code: 'unknown_topic',
          topic,
          message: `The exchange lists no instrument ${symbol}.`,
        });
      }
    }
    // A listed symbol in the same subscribe as an unlisted one is served; only the unlisted topic is refused.
    const other = 'aec-nfl-dal-phi-2026-11-22';
    const mixed = prober.subscribe([`exchange.marketData.${other}`, 'exchange.marketData.bogus-3']);
    expect(await mixed).toMatchObject({ type: 'error', code: 'unknown_topic', topic: 'exchange.marketData.bogus-3' });
    await prober.next((frame) => frame.type === 'ack' && frame.topics.includes(`exchange.marketData.${other}`));
    // The instrument list read for the viewer's symbol answered every probe: nothing more went upstream.
    expect(upstreamCalls(stack)).toBe(sent);

    const last = await bookMoves();
    expect(last).toMatchObject({ type: 'update' });
    await expectViewerUntouched();
  }, 60_000);

  it('refuses a banded what-if or insert on an unlisted symbol as having no reference, without touching the stream', async () => {
    const marketBuy = {
      symbol: 'zz-bogus-1',
      side: 'SIDE_BUY',
      type: 'ORDER_TYPE_MARKET_TO_LIMIT',
      orderQty: '1',
    };
    const sent = upstreamCalls(stack);
    const checks: Json[] = [];
    for (let i = 0; i < 5; i++) {
      const check = await post(stack, '/exchange/v1/trading/orders/check', marketBuy, 'bot');
      expect(check.status).toBe(422);
      checks.push(await json(check));
      expect(checks.at(-1)).toMatchObject({ code: 'RISK_REFERENCE_STALE', symbol: 'zz-bogus-1' });
      const insert = await post(
        stack,
        '/exchange/v1/trading/orders',
        { ...marketBuy, symbol: `zz-bogus-${i + 2}`, clordId: `bogus-${i}` },
        'bot',
      );
      expect(insert.status).toBe(422);
      expect(await json(insert)).toMatchObject({ code: 'RISK_REFERENCE_STALE', symbol: `zz-bogus-${i + 2}` });
    }
    expect(upstreamCalls(stack)).toBe(sent);

    expect(await bookMoves()).toMatchObject({ type: 'update' });
    await expectViewerUntouched();
    // The refusal says why there is no reference, so a mistyped symbol is not taken for a stream outage.
    for (const check of checks) expect(check.detail).toContain('the exchange lists no such instrument');
  }, 60_000);
});

describe('while the instrument list cannot be read', () => {
  // A list the gateway cannot read (the exchange's REST down, its instrument budget spent, a list longer
  // than the directory reads) must not take market data from every team: a new symbol is then left to
  // the exchange, as before the list was consulted. Refusing it failed every new topic for good.
  it('still opens a listed symbol on the stream', async () => {
    const blind = await startStack({ clients });
    try {
      blind.sandbox.state.setFaults({
        exchangeAnswerFaults: { instruments: { every: 1, drop: 1, hold: 0, holdMs: 0 } },
      });
      const client = await WsTestClient.open(blind.url, { key: blind.keys.viewer });
      try {
        expect(await client.subscribe([TOPIC])).toMatchObject({ type: 'ack', topics: [TOPIC] });
        expect(client.topic(TOPIC)[0]).toMatchObject({ type: 'snapshot' });
        // The list was asked for and lost: the symbol went to the exchange's judgement, not to a refusal.
        expect(blind.sandbox.state.counter('exchange.calls.instruments')).toBeGreaterThan(0);
      } finally {
        client.close();
      }
    } finally {
      await blind.close();
    }
  }, 60_000);
});
