import { StallProxy } from './support/stall-proxy.js';
import { limit, post } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json, redisUrl, startStack } from './support/stack.js';

// A cancel is never held back by Redis. Halt-and-cancel latches the halt in Redis first: while Redis
// was out, the latch failed and the whole call was refused 503 "nothing changed", so the kill switch
// cancelled nothing and the team's resting orders kept working. The halt still cannot be latched (503
// says so: new orders are not refused by it), but the scope's resting orders are cancelled all the same,
// and the 503 carries the run's report.

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const RESTING = 3;

describe('halt-and-cancel while Redis is out', () => {
  let stack: Stack;
  let proxy: StallProxy;
  beforeAll(async () => {
    proxy = await StallProxy.start(Number(new URL(redisUrl()).port));
    stack = await startStack({
      redis: true,
      clients: CLIENTS,
      gateway: (config) => ({ ...config, redis: { ...config.redis!, url: proxy.url } }),
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await proxy.close();
  });

  it("cancels the scope's resting orders though the halt cannot be latched, and says the halt is not in force", async () => {
    const resting: string[] = [];
    for (let i = 0; i < RESTING; i++) {
      const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10 + i), 'bot');
      expect(placed.status).toBe(200);
      resting.push((await json(placed)).orderId);
    }
    const working = () =>
      resting.filter((orderId) => stack.sandbox.state.engine.order(orderId)?.state !== 'ORDER_STATE_CANCELED');

    proxy.cut();
    try {
      const res = await post(stack, '/admin/risk/states', {
        scope: 'team:trading',
        state: 'halt-and-cancel',
        reason: 'runaway bot while Redis is out',
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const problem = await json(res);
      expect(problem).toMatchObject({ code: 'SERVICE_UNAVAILABLE', scope: 'team:trading' });
      expect(working()).toEqual([]);
      expect(problem.report).toMatchObject({ scope: 'team:trading', remainingOpen: 0 });
      expect(problem.report.cancelled).toHaveLength(RESTING);
    } finally {
      proxy.restore();
    }
  }, 90_000);
});
