import { type Json, type Stack, eventually, startStack } from './support/stack.js';
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

describe("stream shares: one team cannot pin another's share", () => {
  let stack: Stack;
  let symbols: string[];
  const open: WsTestClient[] = [];
  const topic = (i: number) => `exchange.marketData.${symbols[i]}`;
  const connect = async (clientId: string) => {
    const client = await WsTestClient.open(stack.url, { key: stack.keys[clientId] });
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    const gateway = (config: Json) => ({
      ...config,
      streams: { exchange: { marketDataSymbols: 4, teamSymbolShares: SHARES } },
    });
    const redisKeyPrefix = `t${process.pid}:pin:${Math.random().toString(36).slice(2, 8)}:`;
    stack = await startStack({ redis: true, redisKeyPrefix, clients, gateway });
    symbols = stack.sandbox.state.engine
      .instruments()
      .filter((instrument) => instrument.state === 'INSTRUMENT_STATE_OPEN')
      .slice(0, 4)
      .map((instrument) => instrument.symbol);
  });
  afterAll(async () => {
    open.forEach((client) => client.close());
    await stack?.close();
  });

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
