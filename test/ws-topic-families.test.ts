import { EXCHANGE_TOPIC_FAMILIES } from '@lib/exchange';
import {
  MARKET_DATA_POLICY,
  type TopicFamily,
  type TopicSink,
  type TopicSource,
  TopicSourceRegistry,
} from '@lib/fanout';
import { RETAIL_TOPIC_FAMILIES } from '@lib/retail';

import { OPS_TOPIC_FAMILY } from '../apps/gateway/src/console/ops-topic.source.js';
import { PARTICIPANT, type Stack, api, json, startStack } from './support/stack.js';
import { WsClients } from './support/ws-client.js';

/**
 * A topic family declared the way a lib declares one (its syntax, scope, account rule, policy and
 * description in one object, added to the registry with its source, as ExchangeTopics and
 * RetailTopics do at start): no gateway file names it, yet /ws serves it, admits it by its scope,
 * lets a ticket be narrowed to it, and documents it.
 */
const CLOCK_FAMILY: TopicFamily = {
  syntax: 'test.clock.<slug>',
  scope: 'read:instruments',
  account: false,
  policy: MARKET_DATA_POLICY,
  description: 'test-only: one snapshot naming the topic it was opened for.',
};

/** A real source: one snapshot per opened topic. */
class ClockSource implements TopicSource {
  readonly opened: string[] = [];
  open(topic: string, sink: TopicSink): void {
    this.opened.push(topic);
    sink.snapshot({ openedFor: topic });
  }
  close(): void {}
}

/** A topic of a family, its placeholders filled with values the stack's clients may hold. */
const topicOf = (syntax: string) =>
  syntax
    .replace(/\[.*\]/, '')
    .replace('<participant>', PARTICIPANT)
    .replace('<account>', 'main')
    .replace(/<\w+>/g, 'x');

const source = new ClockSource();
const clients = new WsClients();
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    clients: [
      { id: 'inst', scopes: ['read:instruments'] },
      { id: 'writer', scopes: ['write:orders'] },
    ],
  });
  stack.gateway.get(TopicSourceRegistry).add(CLOCK_FAMILY, source);
});
afterAll(async () => {
  clients.closeAll();
  await stack.close();
});

describe('a topic family declared outside the gateway', () => {
  it('is subscribable by a client with its scope, and its source opens the topic', async () => {
    const ws = await clients.connect(stack, 'inst');
    expect(await ws.subscribe(['test.clock.a'])).toMatchObject({ type: 'ack', topics: ['test.clock.a'] });
    expect(ws.topic('test.clock.a')).toEqual([
      expect.objectContaining({ type: 'snapshot', data: { openedFor: 'test.clock.a' } }),
    ]);
    expect(source.opened).toEqual(['test.clock.a']);
  });

  it('is refused to a client without its scope, naming the scope; a topic outside its syntax is unknown', async () => {
    const ws = await clients.connect(stack, 'writer');
    expect(await ws.subscribe(['test.clock.b'])).toMatchObject({
      type: 'error',
      code: 'forbidden',
      missingScope: 'read:instruments',
      topic: 'test.clock.b',
    });
    expect(await ws.subscribe(['test.clock.b.c d'])).toMatchObject({ type: 'error', code: 'unknown_topic' });
    expect(await ws.subscribe(['test.clocks.b'])).toMatchObject({ type: 'error', code: 'unknown_topic' });
    expect(source.opened).not.toContain('test.clock.b');
  });

  it('narrows a ticket by its syntax', async () => {
    const res = await api(stack, 'inst')('/ws/tickets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topics: [CLOCK_FAMILY.syntax] }),
    });
    expect(res.status).toBe(201);
  });

  it('is listed in the AsyncAPI document with its scope and description', async () => {
    const doc = await json(await fetch(`${stack.url}/docs/ws`));
    expect(doc.components.schemas.topic.oneOf).toContainEqual(
      expect.objectContaining({ title: 'test.clock.<slug>', 'x-scope': 'read:instruments' }),
    );
    expect(doc.info.description).toContain(`test.clock.<slug> (read:instruments): ${CLOCK_FAMILY.description}`);
  });
});

describe('the declared families', () => {
  const declared = [
    ...RETAIL_TOPIC_FAMILIES,
    ...Object.values(EXCHANGE_TOPIC_FAMILIES),
    OPS_TOPIC_FAMILY,
    CLOCK_FAMILY,
  ];

  it('are exactly the topics the AsyncAPI document lists', async () => {
    const doc = await json(await fetch(`${stack.url}/docs/ws`));
    const listed: string[] = doc.components.schemas.topic.oneOf.map(
      (alternative: { title: string }) => alternative.title,
    );
    expect([...listed].sort()).toEqual(declared.map((family) => family.syntax).sort());
    expect(doc.components.schemas.topic.description.split(' | ').sort()).toEqual([...listed].sort());
  });

  it('are each admitted by their own scope, without opening anything for a client lacking it', async () => {
    const ws = await clients.connect(stack, 'writer');
    for (const family of declared) {
      const topic = topicOf(family.syntax);
      expect({ topic, answer: await ws.subscribe([topic]) }).toEqual({
        topic,
        answer: expect.objectContaining({ code: 'forbidden', missingScope: family.scope }),
      });
    }
  });
});
