import { WebSocket } from 'ws';

import { SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, json } from './support/stack.js';

// A backend narrows a /ws ticket to what a browser may read (README "Streams": "a ticket narrows what its
// client may read, it never widens it"). Cancel-on-disconnect is no read: it arms "cancel all my
// orders" for the ticket's client. A narrowed ticket opened with `cancelOnDisconnect` used to be taken,
// so any browser handed a market-data ticket by a trading client's dashboard could cancel every order
// of that client by closing its tab, or hold a crashed bot's own cancel-on-disconnect off while open.

const BOT = {
  id: 'desk',
  team: 'trading',
  scopes: ['read:orders' as const, 'write:orders' as const, 'read:marketdata' as const],
  participants: [PARTICIPANT],
};

/** Opens /ws with a query; resolves with the socket, or the HTTP status of a refused upgrade. */
function openWs(stack: Stack, query: string): Promise<WebSocket | number> {
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/ws?${query}`);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', reject);
  });
}

async function ticket(stack: Stack, body?: object): Promise<string> {
  const res = body
    ? await post(stack, '/ws/tickets', body, 'desk')
    : await api(stack, 'desk')('/ws/tickets', { method: 'POST' });
  expect(res.status).toBe(201);
  return ((await json(res)) as { ticket: string }).ticket;
}

describe('walls: a narrowed /ws ticket arms no brake of its client', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([BOT]);
  });
  afterAll(() => stack?.close());

  it('refuses cancelOnDisconnect on a ticket narrowed to topics (403), and the order stays', async () => {
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 7, { clordId: 'desk-1' }),
      'desk',
    );
    expect(placed.status).toBe(200);
    const narrowed = await ticket(stack, { topics: [`exchange.marketData.${SYMBOL}`] });
    const opened = await openWs(stack, `ticket=${encodeURIComponent(narrowed)}&cancelOnDisconnect=1`);
    if (typeof opened !== 'number') opened.close();
    expect(typeof opened === 'number' ? opened : 'opened').toBe(403);
    expect(stack.sandbox.state.engine.openOrders(PARTICIPANT)).toHaveLength(1);
    // The same narrowed ticket without the brake reads what it was narrowed to.
    const reader = await openWs(
      stack,
      `ticket=${encodeURIComponent(await ticket(stack, { topics: [`exchange.marketData.${SYMBOL}`] }))}`,
    );
    expect(typeof reader).not.toBe('number');
    (reader as WebSocket).close();
  });

  it('still takes cancelOnDisconnect on a ticket that is not narrowed (it acts as its client)', async () => {
    const full = await openWs(stack, `ticket=${encodeURIComponent(await ticket(stack))}&cancelOnDisconnect=300`);
    expect(typeof full).not.toBe('number');
    (full as WebSocket).close();
  });
});

// A bot that spells the brake otherwise (`cancelondisconnect`, `cancel_on_disconnect`) got an open socket
// and no brake: nothing told it that its orders would stay resting when it died.
describe('/ws query: a brake asked in another spelling is refused, not ignored', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([BOT]);
  });
  afterAll(() => stack?.close());

  const withKey = (query: string): Promise<WebSocket | number> => {
    const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/ws?${query}`, {
      headers: { authorization: `Bearer ${stack.keys.desk}` },
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', reject);
    });
  };

  it.each(['cancelondisconnect=5', 'CancelOnDisconnect=5', 'cancel_on_disconnect=5', 'cancelOnDisconect=5'])(
    'refuses /ws?%s 400 problem',
    async (query) => {
      const opened = await withKey(query);
      if (typeof opened !== 'number') opened.close();
      expect(typeof opened === 'number' ? opened : 'opened').toBe(400);
    },
  );

  it('still opens /ws with no query, and with cancelOnDisconnect spelt as documented', async () => {
    for (const query of ['', 'cancelOnDisconnect=300']) {
      const opened = await withKey(query);
      expect(typeof opened).not.toBe('number');
      (opened as WebSocket).close();
    }
  });
});

// A ticket was spent by any refused connection: a browser whose handshake was refused for its query, or a
// brake it may not arm, or its client's connection cap, held a dead ticket and had to ask its backend for
// another. A refused connection opened nothing: the ticket is good again, and still opens once only.
describe('/ws tickets: a refused connection gives its ticket back', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack([BOT]);
  });
  afterAll(() => stack?.close());

  it('takes the same ticket after a 400 and a 403, once', async () => {
    const narrowed = encodeURIComponent(await ticket(stack, { topics: [`exchange.marketData.${SYMBOL}`] }));
    const refused = [
      await openWs(stack, `ticket=${narrowed}&cancelondisconnect=5`),
      await openWs(stack, `ticket=${narrowed}&cancelOnDisconnect=5`),
    ];
    refused.forEach((opened) => typeof opened !== 'number' && opened.close());
    expect(refused.map((opened) => (typeof opened === 'number' ? opened : 'opened'))).toEqual([400, 403]);
    const opened = await openWs(stack, `ticket=${narrowed}`);
    expect(typeof opened).not.toBe('number');
    (opened as WebSocket).close();
    expect(await openWs(stack, `ticket=${narrowed}`)).toBe(401);
  });
});
