import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { StallProxy } from './support/stall-proxy.js';
import { PARTICIPANT, type Stack, json, redisUrl } from './support/stack.js';

// A budget decision read later than limits.maxDecisionAgeMs (50 ms in production) is withdrawn before
// its send: sent then, it would leave bunched with the requests admitted after it. On a busy CPU, or
// behind a Redis that answered late once, that refused the call (429, nothing sent) although a fresh
// decision a moment later had room. Now the try asks the budget again (three decisions in all), so one
// late answer costs a decision, not the order; every decision is still judged fresh at its send.

const CLIENTS = [{ id: 'bot', team: 'trading', scopes: ['write:orders' as const], participants: [PARTICIPANT] }];

describe('a budget decision that aged before its send', () => {
  let proxy: StallProxy;
  let stack: Stack;

  beforeAll(async () => {
    proxy = await StallProxy.start(Number(new URL(redisUrl()).port));
    stack = await startExchangeStack(CLIENTS, {
      redis: true,
      gateway: (config) => ({
        ...config,
        // An age three times production's (a busy test machine stalls ordinary answers by tens of ms); the command
        // timeout stays the tests' 500 ms, so a 400 ms stall is late, not an outage.
        redis: { ...config.redis!, url: proxy.url },
        limits: { ...config.limits, maxDecisionAgeMs: 150 },
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await proxy?.close();
  });

  it('is asked for again, not answered as a refusal: an order behind one late Redis answer is sent once', async () => {
    // Warm: the token, the connections, the Redis round trip's allowance.
    for (let i = 0; i < 5; i++) {
      const res = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 5), 'bot');
      const body = await json(res);
      expect({ status: res.status, code: body.code, detail: body.detail }).toEqual({ status: 200 });
    }

    for (let round = 0; round < 3; round++) {
      proxy.stall();
      const answer = post(
        stack,
        '/exchange/v1/trading/orders',
        limit('SIDE_BUY', 1, 5, { clordId: `late-${round}` }),
        'bot',
      );
      await new Promise((resolve) => setTimeout(resolve, 400));
      proxy.restore();
      const res = await answer;
      const body = await json(res);
      expect({ status: res.status, code: body.code }).toEqual({ status: 200, code: undefined });
      expect(stack.sandbox.state.engine.searchOrders({ clordId: `late-${round}` }).order).toHaveLength(1);
    }
  }, 60_000);
});
