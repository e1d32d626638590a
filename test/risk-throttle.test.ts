import type { GatewayConfigInput } from '@lib/core';

import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json } from './support/stack.js';

const TRADER = ['write:orders' as const, 'read:orders' as const];
const BURST = 20;
const withThrottle = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'loop', maxOrdersPerSecond: 2 }] },
});

describe('per-client message throttle: a runaway loop is stopped while the budget is free', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack(
      [
        { id: 'loop', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] },
        { id: 'calm', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] },
      ],
      { gateway: withThrottle },
    );
  });
  afterAll(() => stack?.close());

  it('answers 429 RISK_THROTTLED with Retry-After over the rate, sends nothing for those, and never throttles a cancel or another client', async () => {
    const inserts = () => stack.sandbox.state.counterSnapshot()['exchange.calls.insertOrder'] ?? 0;
    const before = inserts();
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        post(
          stack,
          '/exchange/v1/trading/orders',
          limit('SIDE_BUY', 1, 10 + (i % 5), { clordId: `loop-${i}` }),
          'loop',
        ),
      ),
    );
    const accepted = answers.filter((res) => res.status === 200);
    const throttled = answers.filter((res) => res.status === 429);
    expect(accepted.length + throttled.length).toBe(BURST);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(throttled.length).toBeGreaterThanOrEqual(1);
    for (const res of throttled) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await json(res)).toMatchObject({ code: 'RISK_THROTTLED', limit: 2, scope: 'client:loop' });
    }
    expect(inserts() - before).toBe(accepted.length);
    // The same client's cancel passes while it is throttled; another client is not throttled at all.
    const { orderId } = await json(accepted[0]!);
    expect((await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'loop')).status).toBe(200);
    expect(
      (await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 9, { clordId: 'calm-1' }), 'calm')).status,
    ).toBe(200);
    console.log(
      `throttle: ${accepted.length} of ${BURST} concurrent inserts accepted at 2/s, ${throttled.length} answered 429`,
    );
  });
});
