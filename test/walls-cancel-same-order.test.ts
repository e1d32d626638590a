import { Bulkheads } from '@lib/core';
import { OrderUpdates } from '@lib/exchange';

import { SENDS_PER_ORDER } from '../apps/gateway/src/orders/shared-cancels.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, api, eventually, json } from './support/stack.js';

// walls-cancel-flood shared the ownership reads of cancels naming nobody's ids, but cancels naming one
// working order each pass the ownership check (the order stream shows it working) and were each sent:
// cancels are exempt from the bulkheads, so a probe's 300 concurrent cancels of one 1-lot held over 100 of
// the exchange pool's 64 connections for one team (its bound 32), spent a cancel token each, were answered
// 1×200, 104×409 and 195×429, and another team's position read queued behind them. Cancels of one order are
// now sent at most two at a time (per team), further concurrent duplicates answered from a send under way
// (SharedCancels).

const W = ['write:orders' as const, 'read:orders' as const, 'read:positions' as const];
const CLIENTS = [
  { id: 'flooder', team: 'trading', scopes: W, participants: [PARTICIPANT] },
  { id: 'neighbour', team: 'platform', scopes: W, participants: [OTHER_PARTICIPANT] },
];

/** The calls in flight of one team now (its gate in every pool). */
const inFlightOf = (stack: Stack, team: string) =>
  [...stack.gateway.get(Bulkheads).snapshot()]
    .filter(([key]) => key.endsWith(`|t|${team}`))
    .reduce((sum, [, count]) => sum + count, 0);

describe('cancels naming one working order, at once', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
    // The exchange token is fetched before the flood.
    expect((await api(stack, 'neighbour')('/exchange/v1/positions')).status).toBe(200);
  }, 90_000);
  afterAll(() => stack?.close());

  it("share one upstream cancel, each is answered, and another team's read is answered", async () => {
    const { state } = stack.sandbox;
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10), 'flooder');
    expect(placed.status).toBe(200);
    const { orderId } = (await json(placed)) as { orderId: string };
    // The order stream shows it working: each cancel's ownership check passes without a read.
    await eventually(
      async () => stack.gateway.get(OrderUpdates).workingOwnerOf(orderId),
      (owner) => owner === PARTICIPANT,
      20_000,
    );
    state.setFaults({ exchangeDelayMs: { cancelOrder: 3_000 } });
    try {
      const before = state.counter('exchange.calls.cancelOrder');
      let most = 0;
      let flooding = true;
      const watch = (async () => {
        while (flooding) {
          most = Math.max(most, inFlightOf(stack, 'trading'));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const flood = Array.from({ length: 300 }, () =>
        post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'flooder'),
      );
      await eventually(
        async () => inFlightOf(stack, 'trading'),
        (n) => n > 0,
      );
      const neighbour = await api(stack, 'neighbour')('/exchange/v1/positions');
      const answers = await Promise.all(flood);
      flooding = false;
      await watch;
      expect(neighbour.status).toBe(200);
      // Never refused by a gateway rule (429) nor failed (5xx): the order's cancel, shared, or the exchange's answer.
      const statuses = answers.map((answer) => answer.status);
      expect([...new Set(statuses)].filter((status) => status !== 200 && status !== 409)).toEqual([]);
      expect(statuses).toContain(200);
      // One order, at most two of its cancels in flight at a time (a retry of a stuck one gets its own
      // send: SENDS_PER_ORDER): before, more than a hundred were sent at once.
      const sent = state.counter('exchange.calls.cancelOrder') - before;
      expect(most).toBeLessThanOrEqual(SENDS_PER_ORDER);
      expect(sent).toBeGreaterThanOrEqual(1);
      expect(sent).toBeLessThanOrEqual(2 * SENDS_PER_ORDER);
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
  }, 90_000);
});
