import { WebSocket } from 'ws';

import { SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Json, type Stack, eventually, json } from './support/stack.js';

// Cancel-on-disconnect of one of two bots on one participant takes, of that participant's orders, only
// those the journal shows the bot was given (a 2xx answer naming the order). A batch replace is answered
// 200 as a whole, each item with its order id or its own error; the journal's answer record of an item
// the exchange refused still named the order with status 200, so a bot whose replace of its sibling's
// order was refused was "given" that order, and its cancel-on-disconnect cancelled it. (The sibling's order
// is now one sent outside the gateway: a replace of one another client was given is refused before it is sent.)

const TWINS = ['twin-a', 'twin-b'].map((id) => ({
  id,
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
}));

describe('cancel-on-disconnect after a refused replace of a sibling bot order', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(TWINS);
  });
  afterAll(() => stack?.close());

  it("leaves the sibling's order resting", async () => {
    const place = async (clordId: string) => {
      const res = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 4, { clordId }), 'twin-a');
      expect(res.status).toBe(200);
      return ((await json(res)) as { orderId: string }).orderId;
    };
    // An order sent outside the gateway (no client was given it: any client of the participant may replace
    // it; one another client was given is refused 403 before it is sent, test/walls-change-others-order.test.ts).
    const sibling = stack.sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      account: PARTICIPANT,
      orderQty: 1,
      price: 4,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    }).orderId;
    await place('a-2');
    // twin-b names that order with a clordId another open order holds: the exchange refuses the item.
    const replace = await post(
      stack,
      '/exchange/v1/trading/orders/replace/list',
      { requests: [{ orderId: sibling, clordId: 'a-2', price: '5' }] },
      'twin-b',
    );
    const answer = (await json(replace)) as Json;
    expect({ status: replace.status, failed: JSON.stringify(answer).includes('orderId') }).toEqual({
      status: 200,
      failed: false,
    });

    const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/ws?cancelOnDisconnect=1`, {
      headers: { authorization: `Bearer ${stack.keys['twin-b']}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.close();
    await eventually(
      async () => stack.logs.some((line) => line.includes('cancel-on-disconnect of twin-b: fired')),
      Boolean,
      15_000,
    );
    expect(stack.sandbox.state.engine.openOrders(PARTICIPANT).map((order) => order.id)).toContain(sibling);
  });
});
