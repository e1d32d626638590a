import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json, pastGatewayRefusals } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

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
    const refused = answers.filter((res) => res.status === 429);
    expect(accepted.length + refused.length).toBe(BURST);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    const problems = await Promise.all(refused.map(async (res) => ({ res, body: await json(res) })));
    // On a loaded machine a budget decision that came back late is refused too (429 RATE_LIMITED, nothing
    // sent): not the throttle's doing, and not what this judges. Every other refusal is the throttle's.
    const throttled = problems.filter(
      ({ body }) => !(body.code === 'RATE_LIMITED' && body.limitedBy === 'unavailable'),
    );
    expect(throttled.length).toBeGreaterThanOrEqual(1);
    for (const { res, body } of throttled) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(body).toMatchObject({ code: 'RISK_THROTTLED', limit: 2, scope: 'client:loop' });
    }
    expect(inserts() - before).toBe(accepted.length);
    // The same client's cancel passes while it is throttled; another client is not throttled at all.
    const { orderId } = await json(accepted[0]!);
    const cancel = await pastGatewayRefusals(() =>
      post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'loop'),
    );
    expect(cancel.status).toBe(200);
    const calm = await pastGatewayRefusals(() =>
      post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 9, { clordId: 'calm-1' }), 'calm'),
    );
    expect(calm.status).toBe(200);
    console.log(
      `throttle: ${accepted.length} of ${BURST} concurrent inserts accepted at 2/s, ${throttled.length} answered 429`,
    );
  });
});
