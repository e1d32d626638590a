import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Json, type Stack, api, eventually, json } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// A team reads on an order's timeline its own records and the teamless ones (the order stream's events,
// the kill switch's per-order records) of the orders it was given. It used to be enough for a team's
// record to *name* an order id: a replace of another team's order, refused 404 by the ownership check,
// still leaves the caller's `received` and `refused` records naming that id, and the other team's order
// stream events (account, side, price, quantity, fills) then showed on the caller's timeline.

const CLIENTS = [
  {
    id: 'alice-bot',
    team: 'platform',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
    retailAccounts: ['main'],
  },
  {
    id: 'bob-bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [OTHER_PARTICIPANT],
    retailAccounts: ['hedge'],
  },
];

describe("walls: a refused call naming another team's order opens none of its records", () => {
  let stack: Stack;
  let socket: WsTestClient | undefined;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
  });
  afterAll(async () => {
    socket?.close();
    await stack?.close();
  });

  const timeline = async (clientId: string, query: string): Promise<{ status: number; records: Json[] }> => {
    const res = await api(stack, clientId)(`/orders/timeline?${query}`);
    return { status: res.status, records: res.status === 200 ? ((await json(res)) as Json).records : [] };
  };

  it("keeps the other team's order stream events off the caller's timeline after its refused replace", async () => {
    // Alice's team places an order; a client follows its participant's order stream, so its events are journaled.
    socket = await WsTestClient.open(stack.url, { key: stack.keys['alice-bot'] });
    await socket.subscribe([`exchange.orders.${PARTICIPANT}`]);
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 3, 11, { clordId: 'alice-desk-1' }),
      'alice-bot',
    );
    expect(placed.status).toBe(200);
    const { orderId } = (await json(placed)) as { orderId: string };
    await eventually(
      () => timeline('alice-bot', 'clordId=alice-desk-1'),
      ({ records }) => records.some((record: Json) => record.kind === 'stream' && record.orderId === orderId),
      10_000,
    );

    // Bob's team names that order id in a replace: refused 404, nothing sent, but journaled under its team.
    const replace = await post(
      stack,
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ orderId, price: '12' }] },
      'bob-bot',
    );
    expect(replace.status).toBe(404);
    expect(stack.sandbox.state.engine.order(orderId)).toMatchObject({ price: 11 });

    for (const query of ['clordId=alice-desk-1', `orderId=${orderId}`]) {
      const seen = await timeline('bob-bot', query);
      // Bob may see its own refused call, never a record that is not its team's.
      expect({ query, foreign: seen.records.filter((record: Json) => record.team !== 'trading') }).toEqual({
        query,
        foreign: [],
      });
      expect(JSON.stringify(seen.records)).not.toContain(PARTICIPANT);
    }
    // Alice's team still reads its whole order, stream events included.
    const alice = await timeline('alice-bot', `orderId=${orderId}`);
    expect(alice.status).toBe(200);
    expect(alice.records.some((record: Json) => record.kind === 'stream')).toBe(true);
    expect(alice.records.some((record: Json) => record.team === 'trading')).toBe(false);
  });
});
