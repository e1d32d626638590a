import { SYMBOL, counterpartyBids } from './support/exchange-stack.js';
import { type Json, type Stack, type StackOptions, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

/**
 * Every symbol an instance streams rides one multiplexed market-data stream, and the exchange refuses
 * that whole stream (INVALID_ARGUMENT) when it names a symbol the exchange does not list. Before, the
 * lane answered such a refusal by failing every symbol still waiting for its snapshot: a team's good
 * symbol opened in the same batch as another team's unknown one was refused too, and a symbol
 * delisted while streamed had every reconnect refused, so every other symbol on the stream stayed
 * dead. Now the refused symbol alone is dropped and the stream reopens for the rest.
 */
const TOPIC = `exchange.marketData.${SYMBOL}`;
const OTHER = 'aec-nfl-dal-phi-2026-11-22';
const OTHER_TOPIC = `exchange.marketData.${OTHER}`;

const clients = [
  { id: 'viewer', team: 'platform', scopes: ['read:marketdata' as const] },
  { id: 'prober', team: 'trading', scopes: ['read:marketdata' as const] },
];

let bid = 30;

/** Another firm's bid one cent higher on SYMBOL: the viewer's topic must carry it (the stream flows). */
function bookMoves(stack: Stack, viewer: WsTestClient): Promise<Json> {
  bid += 1;
  return counterpartyBids(stack, viewer, bid);
}

async function withStack(
  run: (stack: Stack, viewer: WsTestClient, prober: WsTestClient) => Promise<void>,
  sandbox: StackOptions['sandbox'] = {},
) {
  const stack = await startStack({ clients, sandbox });
  const viewer = await WsTestClient.open(stack.url, { key: stack.keys.viewer });
  const prober = await WsTestClient.open(stack.url, { key: stack.keys.prober });
  try {
    await run(stack, viewer, prober);
  } finally {
    viewer.close();
    prober.close();
    await stack.close();
  }
}

describe('one symbol the exchange refuses costs no other symbol its market data', () => {
  it("serves a team's good symbol opened at the same moment as another team's unknown one", async () => {
    await withStack(async (stack, viewer, prober) => {
      // No instrument list to be had (and the read held, so both opens wait on it together): the
      // exchange judges both symbols, on one request of the shared stream.
      stack.sandbox.state.setFaults({
        exchangeDelayMs: { instruments: 500 },
        exchangeAnswerFaults: { instruments: { every: 1, drop: 1, hold: 0, holdMs: 0 } },
      });
      const bogus = 'exchange.marketData.zz-bogus-1';
      const [good, bad] = await Promise.all([viewer.subscribe([TOPIC], 30_000), prober.subscribe([bogus], 30_000)]);
      expect(bad).toMatchObject({ type: 'error', code: 'upstream_failed', topic: bogus });
      expect(bad.message).toContain('zz-bogus-1');
      expect(good).toMatchObject({ type: 'ack', topics: [TOPIC] });
      expect(viewer.topic(TOPIC)[0]).toMatchObject({ type: 'snapshot', data: { symbol: SYMBOL } });
      expect(await bookMoves(stack, viewer)).toMatchObject({ type: 'update' });
      expect(viewer.frames.filter((frame) => frame.type === 'error')).toEqual([]);
    });
  }, 90_000);

  it('keeps the other symbols of the stream flowing when one is delisted while streamed, and tells its subscribers', async () => {
    await withStack(async (stack, viewer, prober) => {
      expect(await viewer.subscribe([TOPIC])).toMatchObject({ type: 'ack', topics: [TOPIC] });
      expect(await prober.subscribe([OTHER_TOPIC])).toMatchObject({ type: 'ack', topics: [OTHER_TOPIC] });
      const { state } = stack.sandbox;
      expect(state.marketDataStreams.openStreams({ symbol: OTHER })).toBe(1);

      // The stream ends (UNAVAILABLE, naming nothing); every reconnect naming OTHER is refused.
      expect(state.delistMarketData(OTHER)).toBe(1);
      await viewer.next((frame) => frame.type === 'resync' && frame.topic === TOPIC, 30_000);
      expect(await bookMoves(stack, viewer)).toMatchObject({ type: 'update' });
      expect(viewer.frames.filter((frame) => frame.type === 'error')).toEqual([]);
      const told = await prober.next((frame) => frame.type === 'error' && frame.topic === OTHER_TOPIC, 30_000);
      expect(told).toMatchObject({ code: 'upstream_failed' });
      expect(told.message).toContain(OTHER);

      // Subscribed again, the refused symbol is answered here: the shared stream is not ended once more.
      const opened = state.counter('grpc.streams.opened.BiDirectionalStreamMarketData');
      expect(await prober.subscribe([OTHER_TOPIC])).toMatchObject({
        type: 'error',
        code: 'upstream_failed',
        topic: OTHER_TOPIC,
      });
      expect(await bookMoves(stack, viewer)).toMatchObject({ type: 'update' });
      expect(state.counter('grpc.streams.opened.BiDirectionalStreamMarketData')).toBe(opened);
    });
  }, 90_000);

  it("frees the ended topic's place among the connection's 100 subscriptions", async () => {
    // 70 games beyond the fixture's instruments: more than 100 symbols.
    const extraGames = Array.from({ length: 70 }, (_, i) => ({
      league: 'tst',
      away: `a${i}`,
      home: `h${i}`,
      date: '2026-12-01',
    }));
    await withStack(
      async (stack, _viewer, prober) => {
        const others = stack.sandbox.state.engine
          .instruments()
          .map((instrument) => `exchange.marketData.${instrument.symbol}`)
          .filter((topic) => topic !== OTHER_TOPIC);
        const full = [OTHER_TOPIC, ...others.slice(0, 99)];
        prober.send({ type: 'subscribe', id: 'full', topics: full });
        const answered = () =>
          new Set(prober.frames.filter((f) => f.id === 'full').flatMap((f) => f.topics ?? [f.topic]));
        await prober.next(() => answered().size === full.length, 30_000);
        expect(prober.frames.filter((f) => f.id === 'full' && f.type === 'error')).toEqual([]);
        // At the bound, one more is refused.
        expect(await prober.subscribe([others[99]!])).toMatchObject({ type: 'error', code: 'too_many_subscriptions' });

        expect(stack.sandbox.state.delistMarketData(OTHER)).toBe(1);
        const told = await prober.next((frame) => frame.type === 'error' && frame.topic === OTHER_TOPIC, 30_000);
        expect(told).toMatchObject({ code: 'upstream_failed' });
        // The ended topic no longer holds a place: the 100th subscription is granted.
        expect(await prober.subscribe([others[99]!], 30_000)).toMatchObject({ type: 'ack', topics: [others[99]] });
      },
      { exchange: { extraGames } },
    );
  }, 90_000);
});
