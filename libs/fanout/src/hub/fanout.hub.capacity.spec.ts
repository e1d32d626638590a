import { MARKET_DATA_POLICY } from '../source/topic-source.types.js';
import { type FakeSource, HubFixture, eventually } from '../testing/hub.fixture.js';
import { FanoutHub } from './fanout.hub.js';

const POOL = 'firm';
const A = { client: 'a1', team: 'A' };
const B = { client: 'b1', team: 'B' };
const topic = (name: string) => `test.market.${name}`;

describe(`${FanoutHub.name} stream capacity`, () => {
  let fixture: HubFixture;
  let source: FakeSource;
  let sut: FanoutHub;

  beforeEach(() => {
    fixture = new HubFixture(
      {
        'test.market.': { ...MARKET_DATA_POLICY, capacity: { pool: POOL, kind: 'market' } },
        'test.free.': MARKET_DATA_POLICY,
      },
      {
        lingerMs: 100,
        capacity: {
          pools: { [POOL]: { capacity: 3, teamShares: { A: 1, B: 2 }, clientTopics: 2 } },
          holdingTtlMs: 15_000,
          renewEveryMs: 3_000,
        },
      },
    );
    ({ source, hub: sut } = fixture);
  });
  afterEach(() => fixture.close());

  it('never opens upstream a topic a cap refuses, and names the cap', async () => {
    const a = await fixture.client(A);
    await a.subscribe(topic('one'));
    await expect(a.subscribe(topic('two'))).rejects.toThrow("this team's share of the firm's exchange streams is 1");
    expect(source.opened).toEqual([topic('one')]);
    expect(sut.info(topic('two'))).toBeUndefined();
  });

  it('charges a shared topic once, to the team that opened it', async () => {
    const [a, b] = [await fixture.client(A), await fixture.client(B)];
    await a.subscribe(topic('one'));
    await b.subscribe(topic('one'));
    await b.subscribe(topic('two'));
    expect(source.opened).toEqual([topic('one'), topic('two')]);
    expect((await sut.streamUsage())[0]).toMatchObject({
      inUse: 2,
      byKind: { market: 2 },
      byTeam: { A: { share: 1, inUse: 1 }, B: { share: 2, inUse: 1 } },
    });
    expect(await fixture.metric('gateway_streams_in_use')).toBe(2);
  });

  it('moves the charge to a team still watching, and gives the stream back once the last subscriber left and the linger ended', async () => {
    const [a, b] = [await fixture.client(A), await fixture.client(B)];
    await a.subscribe(topic('one'));
    await b.subscribe(topic('one'));
    a.unsubscribe(topic('one'));
    // b still watches: the stream is B's now, and A's share is A's own again (B cannot pin it).
    await eventually(async () => (await sut.streamUsage())[0]?.byTeam.B?.inUse === 1, 'the charge to move to B');
    expect((await sut.streamUsage())[0]).toMatchObject({ inUse: 1, byTeam: { A: { inUse: 0 }, B: { inUse: 1 } } });
    await a.subscribe(topic('two'));
    b.unsubscribe(topic('one'));
    await eventually(() => source.closed.includes(topic('one')), 'the linger to end');
    expect((await sut.streamUsage())[0]).toMatchObject({ inUse: 1, byTeam: { A: { inUse: 1 }, B: { inUse: 0 } } });
  });

  it("frees a client's topics when its socket closes, and does not count families outside a pool", async () => {
    const b = await fixture.client(B);
    await b.subscribe(topic('one'));
    await b.subscribe(topic('two'));
    await b.subscribe('test.free.anything');
    await expect(b.subscribe(topic('three'))).rejects.toThrow(
      "this client's cap on distinct exchange stream topics is 2",
    );
    b.close();
    const again = await fixture.client(B);
    await eventually(
      async () =>
        await again.subscribe(topic('three')).then(
          () => true,
          () => false,
        ),
      'the closed socket to give its topics back',
    );
  });
});
