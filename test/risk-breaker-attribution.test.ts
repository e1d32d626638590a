import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/** Rejects in the window that trip a breaker: one per clordId both clients send. */
const TRIP_AT = 2;
const TRADER = ['write:orders' as const, 'read:orders' as const];
/** Two teams' clients on one participant: a clordId is unique per team, so theirs can be the same. */
const trader = (id: string, team: string) => ({ id, team, scopes: TRADER, participants: [PARTICIPANT] });
const CLIENTS = [trader('good', 'trading'), trader('bad', 'desk')];
const withBreaker = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  teams: [...(config.teams ?? []), { id: 'desk' }],
  risk: { breaker: { rejects: TRIP_AT, windowSeconds: 60, coolOffSeconds: 300 } },
});
/** The sandbox holds each insert this long before it runs: both clients' inserts are awaited at once. */
const HOLD_MS = 400;

describe('reject breaker: a stream reject is charged to the client that sent the order', () => {
  let stack: Stack;
  const insert = (order: object, client: string) => post(stack, '/exchange/v1/trading/orders', order, client);
  /** The what-if route runs every gateway check (the breaker included) and sends nothing. */
  const check = (client: string) =>
    post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 1, 11), client).then((res) => res.status);
  const streamRejects = async () => {
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    const of = (client: string) =>
      Number(
        text.match(
          new RegExp(`^gateway_risk_breaker_rejects_total\\{client="${client}",source="stream"\\} (\\d+)$`, 'm'),
        )?.[1] ?? 0,
      );
    return { good: of('good'), bad: of('bad') };
  };

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { redis: true, gateway: withBreaker });
  });
  afterAll(() => stack?.close());

  it('two teams send the same clordId at once: the reject of one counts for it, never for the other', async () => {
    // The first insert holds the order stream for the breaker; its rejects are followed from then on.
    expect((await insert(limit('SIDE_BUY', 1, 10, { clordId: 'warm' }), 'bad')).status).toBe(200);
    const ordersStream = async () =>
      /^gateway_exchange_grpc_streams_open\{kind="orders"\} 1$/m.test(
        await (await fetch(`${stack.url}/metrics`)).text(),
      );
    await eventually(ordersStream, Boolean, 10_000).catch(() => undefined);

    stack.sandbox.state.setFaults({ exchangeDelayMs: { insertOrder: HOLD_MS } });
    try {
      for (let i = 1; i <= TRIP_AT; i++) {
        const clordId = `c-${i}`;
        // `bad` sends an unknown symbol (200, then rejected on the stream); `good` the same clordId while it is awaited.
        const badSent = insert(limit('SIDE_BUY', 1, 10, { symbol: 'no-such-symbol', clordId }), 'bad');
        await new Promise((resolve) => setTimeout(resolve, 60));
        const goodSent = insert(limit('SIDE_BUY', 1, 10, { clordId }), 'good');
        const [bad, good] = await Promise.all([badSent, goodSent]);
        expect({ i, bad: bad.status, good: good.status }).toEqual({ i, bad: 200, good: 200 });
        const [badOrder, goodOrder] = [(await json(bad)).orderId, (await json(good)).orderId];
        expect(stack.sandbox.state.engine.order(badOrder)).toMatchObject({ state: 'ORDER_STATE_REJECTED' });
        expect(stack.sandbox.state.engine.order(goodOrder)).toMatchObject({ state: 'ORDER_STATE_NEW' });
      }
    } finally {
      stack.sandbox.state.setFaults({ exchangeDelayMs: {} });
    }

    const counted = await eventually(streamRejects, ({ good, bad }) => good + bad >= TRIP_AT, 10_000);
    expect(counted).toEqual({ good: 0, bad: TRIP_AT });
    expect(
      await eventually(
        () => check('bad'),
        (status) => status === 403,
        10_000,
      ),
    ).toBe(403);
    expect(await check('good')).toBe(200);
    expect((await insert(limit('SIDE_BUY', 1, 12, { clordId: 'after' }), 'good')).status).toBe(200);
    console.log(
      `breaker: ${TRIP_AT} stream rejects of bad counted for bad only; good, sharing the clordIds, trades on`,
    );
  }, 60_000);
});
