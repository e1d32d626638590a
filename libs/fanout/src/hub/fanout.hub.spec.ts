import { UnknownTopicError } from '../fanout.error.js';
import { TopicSourceRegistry } from '../source/topic-source.registry.js';
import { MARKET_DATA_POLICY } from '../source/topic-source.types.js';
import { type FakeSource, HubFixture, eventually, mergeFold } from '../testing/hub.fixture.js';
import { FanoutHub } from './fanout.hub.js';

const TOPIC = 'test.market.alpha';

describe(FanoutHub.name, () => {
  let fixture: HubFixture;
  let source: FakeSource;
  let sut: FanoutHub;
  const client = () => fixture.client();

  beforeEach(() => {
    fixture = new HubFixture(
      {
        'test.market.': MARKET_DATA_POLICY,
        'test.book.': {
          conflate: true,
          fold: mergeFold((book, change) => ({ ...(book as object), ...(change as object) })),
        },
      },
      { lingerMs: 150 },
    );
    ({ source, hub: sut } = fixture);
  });

  afterEach(() => fixture.close());

  it('without a cluster a sink offers no stored checkpoint: the source keeps its own', async () => {
    const c = await client();
    await c.subscribe(TOPIC);
    expect(source.sink(TOPIC).lastCheckpoint).toBeUndefined();
    source.sink(TOPIC).snapshot({ book: 1 });
    source.sink(TOPIC).update({ trade: 1 }, 'ignored');
    await c.until(() => c.of(TOPIC).length === 2, 'both frames');
    expect(c.of(TOPIC)[1].data).toEqual({ trade: 1 });
  });

  it('opens the upstream once for many concurrent subscribers', async () => {
    let release = () => undefined as void;
    source.gate = new Promise<void>((resolve) => (release = resolve));
    const many = await Promise.all(Array.from({ length: 20 }, () => client()));
    const subscribed = Promise.all(many.map((c) => c.subscribe(TOPIC)));
    await eventually(() => sut.info(TOPIC)?.mode === 'holder', 'the topic to be opening');
    release();
    await subscribed;

    source.sink(TOPIC).snapshot({ book: 1 });
    await Promise.all(many.map((c) => c.until(() => c.of(TOPIC).length === 1, 'the snapshot')));

    expect(source.opened).toEqual([TOPIC]);
    expect(sut.info(TOPIC)?.subscribers).toBe(20);
    expect(await fixture.metric('gateway_fanout_upstream_subscriptions')).toBe(1);
  });

  it('sends a late subscriber the cached snapshot, then the live updates with consecutive seq', async () => {
    const early = await client();
    await early.subscribe(TOPIC);
    source.sink(TOPIC).snapshot({ bids: [1] });
    source.sink(TOPIC).update({ trade: 1 });
    source.sink(TOPIC).update({ trade: 2 });
    await early.until(() => early.of(TOPIC).length === 3, 'three frames');

    const late = await client();
    await late.subscribe(TOPIC);
    source.sink(TOPIC).update({ trade: 3 });
    source.sink(TOPIC).update({ trade: 4 });
    await late.until(() => late.of(TOPIC).length === 3, 'snapshot and two updates');
    await early.until(() => early.of(TOPIC).length === 5, 'five frames');

    expect(early.of(TOPIC).map((f) => [f.type, f.seq])).toEqual([
      ['snapshot', 1],
      ['update', 2],
      ['update', 3],
      ['update', 4],
      ['update', 5],
    ]);
    expect(late.of(TOPIC).map((f) => [f.type, f.seq, f.data])).toEqual([
      ['snapshot', 3, { bids: [1] }],
      ['update', 4, { trade: 3 }],
      ['update', 5, { trade: 4 }],
    ]);
    expect(late.of(TOPIC)[0]).toEqual({
      type: 'snapshot',
      topic: TOPIC,
      epoch: expect.any(String),
      seq: 3,
      ts: expect.any(Number),
      data: { bids: [1] },
    });
    expect(source.opened).toEqual([TOPIC]);
  });

  it('gives a late subscriber the merged state when the policy merges updates', async () => {
    const early = await client();
    await early.subscribe('test.book.beta');
    source.sink('test.book.beta').snapshot({ bid: 1, ask: 3 });
    source.sink('test.book.beta').update({ bid: 2 });

    const late = await client();
    await late.subscribe('test.book.beta');
    expect(late.frames).toEqual([
      {
        type: 'snapshot',
        topic: 'test.book.beta',
        epoch: expect.any(String),
        seq: 2,
        ts: expect.any(Number),
        data: { bid: 2, ask: 3 },
      },
    ]);
  });

  it('closes the upstream after the linger once the last subscriber left', async () => {
    const only = await client();
    await only.subscribe(TOPIC);
    only.unsubscribe(TOPIC);

    await eventually(() => source.closed.length === 1, 'the upstream to close');
    expect(sut.info(TOPIC)).toBeUndefined();
    expect(await fixture.metric('gateway_fanout_upstream_subscriptions')).toBe(0);
  });

  it('keeps the upstream when someone resubscribes within the linger', async () => {
    const first = await client();
    await first.subscribe(TOPIC);
    source.sink(TOPIC).snapshot({ v: 1 });
    first.close(); // a disconnect counts as leaving

    await eventually(() => sut.info(TOPIC)?.subscribers === 0, 'the hub to see the disconnect');
    const second = await client();
    await second.subscribe(TOPIC);
    await new Promise((resolve) => setTimeout(resolve, 400)); // well past the 150 ms linger

    expect(source.opened).toEqual([TOPIC]);
    expect(source.closed).toEqual([]);
    expect(second.of(TOPIC).map((f) => [f.type, f.seq])).toEqual([['snapshot', 1]]);
  });

  it('sends the first snapshot after an upstream gap as a resync to every subscriber', async () => {
    const a = await client();
    const b = await client();
    await a.subscribe(TOPIC);
    await b.subscribe(TOPIC);
    const sink = source.sink(TOPIC);
    sink.snapshot({ v: 1 });
    sink.update({ d: 1 });
    sink.gap();
    sink.snapshot({ v: 2 });
    sink.update({ d: 2 });

    for (const c of [a, b]) {
      await c.until(() => c.of(TOPIC).length === 4, 'four frames');
      expect(c.of(TOPIC).map((f) => [f.type, f.seq, f.data])).toEqual([
        ['snapshot', 1, { v: 1 }],
        ['update', 2, { d: 1 }],
        ['resync', 3, { v: 2 }],
        ['update', 4, { d: 2 }],
      ]);
    }
  });

  it('rejects the subscribers when the upstream refuses, and opens again on the next subscribe', async () => {
    const c = await client();
    source.failure = new Error('upstream refused');
    await expect(c.subscribe(TOPIC)).rejects.toThrow('upstream refused');
    expect(sut.info(TOPIC)).toBeUndefined();
    expect(source.closed).toEqual([TOPIC]);

    source.failure = undefined;
    const again = await client();
    await again.subscribe(TOPIC);
    expect(source.opened).toEqual([TOPIC, TOPIC]);
    expect(sut.info(TOPIC)).toEqual({ mode: 'holder', epoch: expect.any(String), seq: 0, subscribers: 1 });
  });

  it('rejects a topic no source serves', async () => {
    const c = await client();
    await expect(c.subscribe('nobody.serves.this')).rejects.toThrow('No stream serves the topic');
    expect(() => new TopicSourceRegistry().resolve('x')).toThrow(UnknownTopicError);
  });
});
