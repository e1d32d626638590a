import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json } from './support/stack.js';

// The exchange refuses a clordId only while its order is open: a finished order's clordId sent again is
// a second order (upstream-facts "Order safety"). The gateway keyed an insert by its Idempotency-Key, else
// by its clordId for that client, so the same clordId under another key, with no key after a keyed call,
// or from another client of the team on that participant reached the exchange again: a second order.

const trader = (id: string) => ({
  id,
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
});
/** Fills nothing and rests nothing: finished as soon as the exchange takes it. */
const ioc = (clordId: string, price = 5) =>
  limit('SIDE_BUY', 1, price, { clordId, timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' });

describe("an exchange insert's clordId reaches the exchange once a key lifetime", () => {
  let stack: Stack;
  const insert = (body: unknown, client: string, key?: string) =>
    post(stack, '/exchange/v1/trading/orders', body, client, key ? { 'idempotency-key': key } : {});
  const orders = (clordId: string) => stack.sandbox.state.engine.searchOrders({ clordId }).order;

  beforeAll(async () => {
    stack = await startExchangeStack([trader('bot'), trader('sibling')]);
  });
  afterAll(() => stack?.close());

  it('a resend of a keyed insert without its key, or under a new key, gets the first outcome', async () => {
    const first = await insert(ioc('once-1'), 'bot', 'once-key-1');
    expect(first.status).toBe(200);
    const { orderId } = await json(first);
    for (const key of [undefined, 'once-key-2']) {
      const again = await insert(ioc('once-1'), 'bot', key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((await json(again)).orderId).toBe(orderId);
    }
    expect(orders('once-1')).toHaveLength(1);
  });

  it('another order under a sent clordId is refused 409 CLORDID_IN_USE, from the client or its sibling, not another team', async () => {
    expect((await insert(ioc('once-2'), 'bot')).status).toBe(200);
    for (const [body, client, key] of [
      [ioc('once-2', 6), 'bot', undefined],
      [ioc('once-2', 6), 'bot', 'once-key-3'],
      [ioc('once-2'), 'sibling', undefined],
      [ioc('once-2'), 'sibling', 'once-key-4'],
    ] as const) {
      const refused = await insert(body, client, key);
      expect(refused.status).toBe(409);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await json(refused)).toMatchObject({ code: 'CLORDID_IN_USE', field: 'clordId', clordIds: ['once-2'] });
    }
    expect(orders('once-2')).toHaveLength(1);
    // Another team's use of a clordId never blocks this team's (the exchange's own rule, open orders only, still holds).
    const otherTeam = await post(stack, '/exchange/v1/trading/orders', ioc('once-2'), 'all', {
      'x-participant-id': PARTICIPANT,
    });
    expect(otherTeam.status).toBe(200);
    expect(orders('once-2')).toHaveLength(2);
    // Its key is free again: the refused call sent nothing.
    expect((await insert(ioc('once-3'), 'bot', 'once-key-3')).status).toBe(200);
  });

  it('a clordId sent in a batch is not sent again alone', async () => {
    const batch = await post(
      stack,
      '/exchange/v1/trading/orders/list',
      { requests: [ioc('once-4'), ioc('once-5')] },
      'bot',
    );
    expect(batch.status).toBe(200);
    expect((await json(await insert(ioc('once-5'), 'sibling'))).code).toBe('CLORDID_IN_USE');
    expect(orders('once-5')).toHaveLength(1);
  });

  it('inserts of one clordId sent together, under different keys, reach the exchange once', async () => {
    for (let round = 0; round < 5; round++) {
      const clordId = `together-${round}`;
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          insert(ioc(clordId, 5 + (i % 2)), i % 3 === 0 ? 'sibling' : 'bot', `together-${round}-${i}`),
        ),
      );
      // Each is sent, replayed or refused (never a 5xx); the exchange holds one order of the clordId at most.
      for (const answer of answers) expect([200, 409]).toContain(answer.status);
      expect(answers.some((answer) => answer.status === 200)).toBe(true);
      expect(orders(clordId).length).toBeLessThanOrEqual(1);
    }
  });
});
