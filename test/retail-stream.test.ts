import { RetailSigner } from '@lib/auth';
import type { TopicSink } from '@lib/fanout';
import { RetailStreams, RetailTopicSource } from '@lib/retail';

import { type Json, type Stack, api, eventually, pastGatewayRefusals, startStack } from './support/stack.js';

const usd = (value: string) => ({ value, currency: 'USD' });
const slug = 'aec-nba-mil-phi-2026-11-21';

interface Recorded {
  kind: 'snapshot' | 'update' | 'gap';
  payload?: Json;
}

/** A hub sink that remembers what it was given, in order. */
function recorder(): { sink: TopicSink; events: Recorded[] } {
  const events: Recorded[] = [];
  return {
    events,
    sink: {
      snapshot: (payload) => events.push({ kind: 'snapshot', payload }),
      update: (payload) => events.push({ kind: 'update', payload }),
      gap: () => events.push({ kind: 'gap' }),
    },
  };
}

const SNAPSHOT_TOPICS = [
  `retail.marketData.${slug}`,
  `retail.marketDataLite.${slug}`,
  'retail.orders',
  `retail.orders.${slug}`,
  'retail.positions',
  'retail.balances',
];
const TOPICS = [...SNAPSHOT_TOPICS, `retail.trade.${slug}`];

let stack: Stack;
beforeAll(async () => {
  // The order path's own hold of the accounts' order channels (around retail creates, for lost answers) is off:
  // the subscriptions counted here are the topics' alone.
  stack = await startStack({
    gateway: (config) => ({ ...config, journal: { ...config.journal, orderStream: 'never' } }),
  });
});
afterAll(() => stack.close());

describe(RetailTopicSource.name, () => {
  it('reconnects after the upstream drops every connection, with every subscription active again, and keeps delivering', async () => {
    const sut = new RetailTopicSource(stack.gateway.get(RetailStreams, { strict: false }), 'main');
    const sinks = new Map(TOPICS.map((topic) => [topic, recorder()]));
    await Promise.all(TOPICS.map((topic) => sut.open(topic, sinks.get(topic)!.sink)));
    try {
      for (const topic of SNAPSHOT_TOPICS) expect(sinks.get(topic)!.events[0]).toMatchObject({ kind: 'snapshot' });
      expect(sinks.get('retail.balances')!.events[0].payload).toMatchObject({
        stream: 'balances',
        key: 'accountBalanceSubscriptionSnapshot',
        data: { balance: 10_000 },
      });
      const { state } = stack.sandbox;
      expect(state.retail.activeSubscriptions()).toBe(TOPICS.length);

      expect(state.dropRetailWebSockets()).toBe(2); // one markets and one private connection
      // Bounded wait, not a speed claim: the backoff starts at about 100 ms.
      await eventually(
        async () => state.retail.activeSubscriptions(),
        (n) => n === TOPICS.length,
        10_000,
      );
      for (const topic of SNAPSHOT_TOPICS) {
        const kinds = await eventually(
          async () => sinks.get(topic)!.events.map((e) => e.kind),
          (k) => k.lastIndexOf('snapshot') > k.indexOf('gap') && k.includes('gap'),
          10_000,
        );
        expect(kinds.slice(0, 3)).toEqual(['snapshot', 'gap', 'snapshot']);
      }

      const call = api(stack);
      const buy = await pastGatewayRefusals(() =>
        call('/retail/v1/orders', {
          method: 'POST',
          body: JSON.stringify({ marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.60'), quantity: 2 }),
        }),
      );
      expect(buy.status).toBe(200);
      const sell = await pastGatewayRefusals(() =>
        call('/retail/v1/orders', {
          method: 'POST',
          body: JSON.stringify({ marketSlug: slug, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.60'), quantity: 2 }),
          headers: { 'x-retail-account': 'hedge' },
        }),
      );
      expect(sell.status).toBe(200);
      const updated = (topic: string, test: (e: Recorded) => boolean) =>
        eventually(
          async () => sinks.get(topic)!.events.find(test),
          (e) => e !== undefined,
          10_000,
        );
      await updated(`retail.trade.${slug}`, (e) => e.kind === 'update' && e.payload.data.price.value === '0.60');
      await updated(
        `retail.orders.${slug}`,
        (e) => e.kind === 'update' && e.payload.data.execution.type === 'EXECUTION_TYPE_FILL',
      );
      await updated('retail.orders', (e) => e.kind === 'update' && e.payload.key === 'orderSubscriptionUpdate');
      await updated('retail.positions', (e) => e.kind === 'update' && e.payload.data.position.netPosition === '2');
      await updated('retail.balances', (e) => e.kind === 'update' && e.payload.data.balance === 10_000 - 1.2);
      await updated(
        `retail.marketDataLite.${slug}`,
        (e) => e.kind === 'snapshot' && e.payload.data.lastTradePx?.value === '0.60',
      );
    } finally {
      TOPICS.forEach((topic) => sut.close(topic));
    }
    await eventually(
      async () => stack.sandbox.state.retail.activeSubscriptions(),
      (n) => n === 0,
      10_000,
    );
  });

  it('refuses a topic the upstream answers with an error frame', async () => {
    const sut = new RetailTopicSource(stack.gateway.get(RetailStreams, { strict: false }), 'main');
    await expect(sut.open('retail.marketData.no-such-market', recorder().sink)).rejects.toThrow(/unknown market/);
    await expect(sut.open('retail.nothing', recorder().sink)).rejects.toThrow(/not a retail topic/);
  });
});

describe(RetailStreams.name, () => {
  it('answers heartbeats, and treats silence past the timeout as a dead connection', async () => {
    const { state } = stack.sandbox;
    const streams = new RetailStreams(stack.config, stack.gateway.get(RetailSigner, { strict: false }), {
      heartbeatTimeoutMs: 1_000,
    });
    try {
      state.retail.heartbeatMs = 100;
      const lively = streams.socket('hedge', 'private');
      const events: string[] = [];
      const listener = { event: () => events.push('event'), gap: () => events.push('gap'), error: () => undefined };
      await lively.subscribe({ subscriptionType: 'SUBSCRIPTION_TYPE_ACCOUNT_BALANCE' }, listener).ready;
      await new Promise((r) => setTimeout(r, 2_000)); // twice the silence limit
      expect(lively.stats).toEqual({ connects: 1, drops: 0 }); // heartbeats kept it alive

      state.retail.heartbeatMs = 60_000; // the next connection hears nothing after its snapshot
      state.dropRetailWebSockets();
      await eventually(
        async () => lively.stats.drops,
        (drops) => drops >= 2,
        5_000,
      );
      expect(events.filter((e) => e === 'gap').length).toBeGreaterThanOrEqual(2);
    } finally {
      state.retail.heartbeatMs = 5_000;
      streams.onApplicationShutdown();
    }
  });
});
