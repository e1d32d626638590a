import { type Json, type Stack, api, eventually, json, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

/**
 * A team's share of the firm's market-data symbols is its own: another team watching the topics a
 * team opened (free: a held topic costs nothing more) must not keep them charged to that team after
 * its clients left. The charge moves to a team still holding the topic, so no team can pin another's
 * share by subscribing to what the other opened.
 */
const SHARES = { platform: 2, trading: 2 };
const clients = [
  { id: 'a1', team: 'platform', scopes: ['read:marketdata' as const] },
  { id: 'b1', team: 'trading', scopes: ['read:marketdata' as const] },
];

/** One gateway and sandbox with the shares above (on Redis or not), and /ws clients closed after. */
function shareStack(redis: boolean, tag: string) {
  const fixture = { stack: undefined as unknown as Stack, symbols: [] as string[] };
  const open: WsTestClient[] = [];
  beforeAll(async () => {
    const gateway = (config: Json) => ({
      ...config,
      streams: { exchange: { marketDataSymbols: 4, teamSymbolShares: SHARES } },
    });
    const redisKeyPrefix = `t${process.pid}:${tag}:${Math.random().toString(36).slice(2, 8)}:`;
    fixture.stack = await startStack({ redis, redisKeyPrefix, clients, gateway });
    fixture.symbols = fixture.stack.sandbox.state.engine
      .instruments()
      .filter((instrument) => instrument.state === 'INSTRUMENT_STATE_OPEN')
      .slice(0, 4)
      .map((instrument) => instrument.symbol);
  });
  afterAll(async () => {
    open.forEach((client) => client.close());
    await fixture.stack?.close();
  });
  return {
    topic: (i: number) => `exchange.marketData.${fixture.symbols[i]}`,
    connect: async (clientId: string) => {
      const client = await WsTestClient.open(fixture.stack.url, { key: fixture.stack.keys[clientId] });
      open.push(client);
      return client;
    },
    stack: () => fixture.stack,
  };
}

describe("stream shares: one team cannot pin another's share", () => {
  const { topic, connect } = shareStack(true, 'pin');

  it('lets a team open its share again once it left topics another team still watches, and charges those to the watcher', async () => {
    const trading = await connect('b1');
    expect(await trading.subscribe([topic(0), topic(1)])).toMatchObject({ type: 'ack' });
    expect(await trading.subscribe([topic(2)])).toMatchObject({ type: 'error', code: 'too_many_streams', cap: 'team' });
    // Platform joins both (already held: free), then trading leaves them.
    const platform = await connect('a1');
    expect(await platform.subscribe([topic(0), topic(1)])).toMatchObject({ type: 'ack' });
    trading.send({ type: 'unsubscribe', id: 'leave', topics: [topic(0), topic(1)] });
    await trading.next((frame) => frame.type === 'ack' && frame.id === 'leave');
    // Trading holds nothing now: its share is its own again (before, refused while platform watched).
    const granted = await eventually(
      () => trading.subscribe([topic(2)]),
      (frame) => frame.type === 'ack',
      5_000,
      100,
    );
    expect(granted).toMatchObject({ type: 'ack', topics: [topic(2)] });
    // Platform now carries the two it watches: its share is full for new topics, not for held ones.
    expect(await platform.subscribe([topic(3)])).toMatchObject({
      type: 'error',
      code: 'too_many_streams',
      cap: 'team',
      limit: 2,
    });
    expect(await platform.subscribe([topic(2)])).toMatchObject({ type: 'ack' });
  });
});

/**
 * The same rule when a topic's last holder left and its stream lingers (5 s): a client of another team
 * that joins it then holds it, so the charge moves to that team. Without Redis the charge stayed with
 * the team that opened it for as long as the other team watched (a probe: platform refused its share,
 * `/admin/limits` showing platform 2, trading 0, with no platform client holding anything). With Redis
 * it was right; both are run.
 */
for (const redis of [false, true]) {
  describe(`stream shares: a lingering topic joined by another team (${redis ? 'Redis' : 'no Redis'})`, () => {
    const { topic, connect, stack } = shareStack(redis, 'linger');
    const byTeam = async (): Promise<Json> =>
      (await json(await api(stack())('/admin/limits'))).streams.find((pool: Json) => pool.pool === 'exchange.symbols')
        .byTeam;

    it('charges the joining team, and the team with no client holding anything opens its share again', async () => {
      const platform = await connect('a1');
      expect(await platform.subscribe([topic(0), topic(1)])).toMatchObject({ type: 'ack' });
      platform.send({ type: 'unsubscribe', id: 'leave', topics: [topic(0), topic(1)] });
      await platform.next((frame) => frame.type === 'ack' && frame.id === 'leave');
      // Nobody holds them: they linger, still charged to platform.
      expect((await byTeam()).platform).toEqual({ share: 2, inUse: 2 });
      const trading = await connect('b1');
      expect(await trading.subscribe([topic(0), topic(1)])).toMatchObject({ type: 'ack' });
      // Trading holds both now: they are its charge, and platform holds nothing.
      expect(await byTeam()).toEqual({ platform: { share: 2, inUse: 0 }, trading: { share: 2, inUse: 2 } });
      // Before, refused `team` limit 2 for as long as trading watched.
      expect(await platform.subscribe([topic(2)])).toMatchObject({ type: 'ack', topics: [topic(2)] });
    });
  });
}
