import { setImmediate as tick } from 'node:timers/promises';

import type { FanoutHub } from '../hub/fanout.hub.js';
import { MARKET_DATA_POLICY } from '../source/topic-source.types.js';
import { type FakeSource, HubFixture } from '../testing/hub.fixture.js';
import { HubClient, SLOW_CONSUMER_CLOSE_CODE } from './hub.client.js';

const MARKET = 'test.market.alpha';
const ACCOUNT = 'test.account.orders';
/** Large frames fill the loopback socket buffers after a few megabytes instead of thousands of frames. */
const filler = 'x'.repeat(32 * 1024);

describe(HubClient.name, () => {
  let fixture: HubFixture;
  let source: FakeSource;
  let hub: FanoutHub;
  const client = () => fixture.client();

  /** Emits updates, yielding to the event loop now and then, until `done` or a bound is reached. */
  async function emitUntil(topic: string, done: () => boolean, max = 3_000): Promise<number> {
    let emitted = 0;
    while (!done() && emitted < max) {
      source.sink(topic).update({ n: emitted, filler });
      emitted += 1;
      if (emitted % 8 === 0) await tick();
    }
    if (!done()) throw new Error(`condition not reached after ${emitted} frames`);
    return emitted;
  }

  beforeEach(() => {
    fixture = new HubFixture(
      {
        'test.market.': MARKET_DATA_POLICY,
        'test.account.': { conflate: false, replayWindow: { messages: 100_000, ms: 60_000 } },
      },
      { client: { maxQueueBytes: 512 * 1024, highWaterBytes: 64 * 1024 } },
    );
    ({ source, hub } = fixture);
  });

  afterEach(() => fixture.close());

  it('conflates a market topic for a client that stops reading, while the others keep receiving', async () => {
    const fast = await client();
    const slow = await client();
    await fast.subscribe(MARKET);
    await slow.subscribe(MARKET);
    source.sink(MARKET).snapshot({ book: 0 });
    await slow.until(() => slow.of(MARKET).length === 1, 'the snapshot');
    const slowOnServer = fixture.hubClients[1];

    slow.ws.pause();
    const emitted = await emitUntil(MARKET, () => slowOnServer.conflatedFrames >= 20);
    const latestSeq = 1 + emitted;
    // Everyone else got every frame while the slow client was stuck.
    await fast.until(() => fast.of(MARKET).at(-1)?.seq === latestSeq, 'the fast client to get the latest frame');
    expect(fast.of(MARKET).map((f) => f.seq)).toEqual(range(1, latestSeq));
    expect(slowOnServer.isOpen).toBe(true);

    slow.ws.resume();
    await slow.until(() => slow.of(MARKET).at(-1)?.seq === latestSeq, 'the slow client to catch up');
    const seqs = slow.of(MARKET).map((f) => f.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b)); // in order, no stale frame after a newer one
    expect(seqs.length).toBe(latestSeq - slowOnServer.conflatedFrames); // the skipped frames never reached it
    expect(slow.of(MARKET).at(-1)?.data).toEqual({ n: emitted - 1, filler });
    expect(await fixture.metric('gateway_fanout_conflated_frames_total')).toBe(slowOnServer.conflatedFrames);
    expect(await fixture.metric('gateway_fanout_dropped_clients_total')).toBe(0);
  });

  it('closes a client too slow for an account topic with 1013, and a resume replays exactly what it missed', async () => {
    const fast = await client();
    const slow = await client();
    await fast.subscribe(ACCOUNT);
    await slow.subscribe(ACCOUNT);
    source.sink(ACCOUNT).snapshot({ orders: [] });
    await slow.until(() => slow.of(ACCOUNT).length === 1, 'the snapshot');
    const slowOnServer = fixture.hubClients[1];

    slow.ws.pause();
    await emitUntil(ACCOUNT, () => !slowOnServer.isOpen);
    expect(await fixture.metric('gateway_fanout_dropped_clients_total')).toBe(1);
    expect(await fixture.metric('gateway_fanout_conflated_frames_total')).toBe(0);

    slow.ws.resume(); // it reads what reached its socket, then the close frame
    expect((await slow.closed).code).toBe(SLOW_CONSUMER_CLOSE_CODE);
    const received = slow.of(ACCOUNT).map((f) => f.seq);
    expect(received).toEqual(range(1, received.length)); // nothing skipped before the close
    const lastSeen = received.length;
    const epoch = hub.info(ACCOUNT)?.epoch;

    source.sink(ACCOUNT).update({ after: 'close' });
    const latestSeq = hub.info(ACCOUNT)?.seq ?? 0;
    await fast.until(() => fast.of(ACCOUNT).at(-1)?.seq === latestSeq, 'the fast client to get everything');

    const resumed = await client();
    await resumed.subscribe(ACCOUNT, { epoch, seq: lastSeen });
    source.sink(ACCOUNT).update({ live: true });
    await resumed.until(() => resumed.of(ACCOUNT).at(-1)?.seq === latestSeq + 1, 'the live frame after the replay');
    await fast.until(() => fast.of(ACCOUNT).at(-1)?.seq === latestSeq + 1, 'the live frame');

    const replayed = resumed.of(ACCOUNT);
    expect(replayed.map((f) => f.seq)).toEqual(range(lastSeen + 1, latestSeq + 1));
    expect(replayed).toEqual(fast.of(ACCOUNT).filter((f) => f.seq > lastSeen));
    expect(fast.of(ACCOUNT).map((f) => f.seq)).toEqual(range(1, latestSeq + 1));
  });

  it('answers a resume from outside the window with a resync of the current state', async () => {
    const first = await client();
    await first.subscribe(MARKET);
    source.sink(MARKET).snapshot({ book: 1 });
    source.sink(MARKET).update({ trade: 1 });
    await first.until(() => first.of(MARKET).length === 2, 'two frames');

    const resumed = await client();
    await resumed.subscribe(MARKET, { epoch: hub.info(MARKET)?.epoch, seq: 1 }); // market topics keep no window
    expect(resumed.of(MARKET)).toEqual([
      {
        type: 'resync',
        topic: MARKET,
        epoch: hub.info(MARKET)?.epoch,
        seq: 2,
        ts: expect.any(Number),
        data: { book: 1 },
      },
    ]);
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
