import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json, testJournal } from './support/stack.js';

// A clordId is unique per participant (the exchange's rule; the gateway's claim_once is per participant),
// but GET /orders/clord/{clordId} reads the latest insert of the team that sent that clordId on any
// participant. Before, that route was the Location of an exchange insert's 202: a client whose insert on
// one participant was PENDING, and which (or a teammate) then sent the same clordId on another participant,
// read at its 202's Location the other participant's order as its own (DONE, 200, {orderId}) while its
// call was still unresolved. Now the Location names the call itself, by its key (the client's
// Idempotency-Key, else the gateway's `clordId:<participant>:<clordId>`), which only that client reads.

const TEAMMATE = {
  id: 'teammate',
  team: 'platform',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [OTHER_PARTICIPANT],
};
const INSERT = '/exchange/v1/trading/orders';

describe("a 202's Location after the same clordId on another participant", () => {
  let stack: Stack;
  const get = (path: string, client = 'all') =>
    fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.keys[client]}` } });
  const onParticipant = (clordId: string) =>
    stack.sandbox.state.engine
      .searchOrders({ accounts: [PARTICIPANT] })
      .order.filter((order: { clordId: string }) => order.clordId === clordId);

  beforeAll(async () => {
    stack = await startExchangeStack([TEAMMATE], {
      gateway: (config) => ({
        ...config,
        // Nothing resolves the lost insert while the test reads it: no order stream, a slow order search.
        journal: { ...(config.journal ?? testJournal()), orderStream: 'never', resolveSearchesPerMinute: 12 },
        risk: { ...config.risk, breaker: { ...config.risk?.breaker, orderStream: 'never' } },
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  /** An insert on PARTICIPANT whose request never reaches the exchange: 202, the call PENDING. */
  const lostInsert = async (clordId: string, headers: Record<string, string>) => {
    stack.sandbox.state.setFaults({ exchangeLostRequests: { insertOrder: 1 } });
    const lost = await post(stack, INSERT, limit('SIDE_BUY', 1, 11, { clordId }), 'all', headers);
    expect(lost.status).toBe(202);
    return lost.headers.get('location')!;
  };

  it("answers the call's own outcome, never the same client's order on another participant", async () => {
    const clordId = 'two-participants-1';
    const location = await lostInsert(clordId, { 'idempotency-key': 'p1-key' });

    // The same clordId on the client's other participant: legal, placed at once.
    const other = await post(stack, INSERT, limit('SIDE_BUY', 1, 12, { clordId, account: OTHER_PARTICIPANT }), 'all', {
      'idempotency-key': 'p2-key',
    });
    expect(other.status).toBe(200);
    const { orderId } = await json(other);
    expect(onParticipant(clordId)).toEqual([]);

    // The Location tells the PARTICIPANT call's outcome (still PENDING, as its key says), not the other order.
    const byLocation = await json(await get(location));
    const byKey = await json(await get('/orders/key/p1-key'));
    expect(byKey).toMatchObject({ state: 'PENDING' });
    expect(byLocation.state).toBe(byKey.state);
    expect(JSON.stringify(byLocation)).not.toContain(String(orderId));
    expect(location).toBe('/orders/key/p1-key');
  }, 90_000);

  it("answers the call's own outcome, never a teammate's order, for an insert sent without a key", async () => {
    // Not ASCII and holding a slash, as a clordId may: its key is no client key, yet read at the Location.
    const clordId = 'two-participants/2-é';
    // No Idempotency-Key: the call's key is the gateway's, named by the Location and readable there.
    const location = await lostInsert(clordId, {});
    const key = `clordId:${PARTICIPANT}:${clordId}`;

    // A teammate (same team, another client) uses the clordId on its own participant.
    const other = await post(
      stack,
      INSERT,
      limit('SIDE_BUY', 1, 13, { clordId, account: OTHER_PARTICIPANT }),
      'teammate',
    );
    expect(other.status).toBe(200);
    const { orderId } = await json(other);
    expect(onParticipant(clordId)).toEqual([]);

    const byLocation = await json(await get(location));
    expect(byLocation).toMatchObject({ state: 'PENDING' });
    expect(JSON.stringify(byLocation)).not.toContain(String(orderId));
    expect(location).toBe(`/orders/key/${encodeURIComponent(key)}`);
    expect(byLocation).toMatchObject({ key });
    // The call is the client's own: the teammate does not read it at that Location.
    expect((await get(location, 'teammate')).status).toBe(404);
  }, 90_000);
});
