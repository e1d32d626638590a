import { Bulkheads } from '@lib/core';

import { post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, api, eventually } from './support/stack.js';

// A cancel is never blocked by a gateway rule: no per-client rate, and the open-orders read that checks
// whose order it names (an id the order stream does not show working) is never refused by the bulkheads.
// So a flood of cancels naming ids that are nobody's made one exchange read each: a probe's 300 concurrent
// ones held 169 of the exchange pool's connections for one team against its bound of 32, and another
// team's position read waited 6 s behind them (21 s for 600). The checks of one participant now share
// their reads (at most two under way, each read after its callers came).

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

describe("cancels naming ids that are nobody's, at once", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
    // The exchange token is fetched before the flood.
    expect((await api(stack, 'neighbour')('/exchange/v1/positions')).status).toBe(200);
  });
  afterAll(() => stack?.close());

  it("hold at most two of the team's calls in flight, each is answered 404, and another team's read is answered", async () => {
    const { state } = stack.sandbox;
    state.setFaults({ exchangeDelayMs: { openOrders: 2_000 } });
    try {
      let most = 0;
      let flooding = true;
      const watch = (async () => {
        while (flooding) {
          most = Math.max(most, inFlightOf(stack, 'trading'));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const flood = Array.from({ length: 300 }, (_, i) =>
        post(stack, '/exchange/v1/trading/orders/cancel', { orderId: `nobodys-${i}` }, 'flooder'),
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
      expect([...new Set(answers.map((answer) => answer.status))]).toEqual([404]);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      state.setFaults({ exchangeDelayMs: {} });
    }
  }, 60_000);
});
