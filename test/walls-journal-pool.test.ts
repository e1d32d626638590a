import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, api } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// The journal's connection pool is shared by every team: a new order's `received` record and its key's
// claim are written ahead of the send, and an order whose write cannot get a connection in time is
// refused 503 JOURNAL_UNAVAILABLE. One team's reads of the journal (`/orders/timeline`, each up to 1,000
// records) took connections without any bound of their own, so a team firing its reads at once held
// the whole pool and the other team's orders queued behind them until they were refused.
//
// @runs-alone: its 1,000 writes and 600 heavy reads are the load it judges (beside another file's stacks
// on two cores it outlived jest's 30 s in ci50, and another file's load would be its outage, not the rival's).

const TRADER = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'desk', team: 'platform', scopes: TRADER, participants: [PARTICIPANT] },
  { id: 'rival', team: 'trading', scopes: TRADER, participants: [OTHER_PARTICIPANT] },
];
/** Refused orders under one clordId: each timeline read of it returns this many records. */
const RECORDS = 1_000;
/** Timeline reads the rival fires at once (inside its inbound burst). */
const READS = 600;

const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: { ...config.limits, maxDecisionAgeMs: 30_000 },
  risk: { limits: [{ scope: 'firm', maxOrderQty: 1_000 }] },
});

describe("walls: one team's journal reads cannot take the pool another team's orders are written through", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { gateway: withLimit });
  });
  afterAll(() => stack?.close());

  it("answers the desk's orders while the rival fires hundreds of heavy timeline reads at once", async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < RECORDS) {
          next++;
          const res = await post(
            stack,
            '/exchange/v1/trading/orders',
            limit('SIDE_BUY', 5_000, 9, { clordId: 'rival-heavy' }),
            'rival',
          );
          await res.arrayBuffer();
        }
      }),
    );

    let reading = true;
    const reads = Promise.all(
      Array.from({ length: READS }, async () => {
        const res = await api(stack, 'rival')('/orders/timeline?clordId=rival-heavy');
        await res.arrayBuffer();
        return res.status;
      }),
    ).finally(() => (reading = false));
    // The desk keeps placing orders, one after another, while the rival's reads are under way.
    const orders: { status: number; code?: string }[] = [];
    for (let i = 0; reading || i === 0; i++) {
      const res = await post(
        stack,
        '/exchange/v1/trading/orders',
        limit('SIDE_BUY', 1, 9, { clordId: `desk-${i}` }),
        'desk',
      );
      const body = (await res.json()) as { code?: string };
      orders.push({ status: res.status, code: body.code });
    }
    const readStatuses = new Set(await reads);

    // The desk may meet its own team's budget (429 RATE_LIMITED), never the rival's reads.
    expect(orders.filter((order) => order.status !== 200 && order.code !== 'RATE_LIMITED')).toEqual([]);
    expect(orders.some((order) => order.status === 200)).toBe(true);
    // The rival's reads are answered or refused for its own reads' sake, never failed as an outage.
    expect([...readStatuses].filter((status) => status !== 200 && status !== 429)).toEqual([]);
  }, 180_000);
});
