import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Json, type Stack, api, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// An order's timeline holds its first 1,000 records; a clordId reused without end is to be read by the
// order id (README "Reading and verifying the journal"). The read by order id also follows the order's
// clordId, and it took every record under that clordId, any team's, before the cut: another team that
// knows (or guesses) a desk's clordId could write 1,000 refused orders under it and push the desk's own
// later records (its cancel, its fills) out of its order's timeline, the admin's included.

const TRADER = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'desk', team: 'platform', scopes: TRADER, participants: [PARTICIPANT] },
  { id: 'rival', team: 'trading', scopes: TRADER, participants: [OTHER_PARTICIPANT] },
];
/** Enough refused orders to fill the timeline's first 1,000 records on their own. */
const FLOOD = 1_000;

const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: { ...config.limits, maxDecisionAgeMs: 30_000 },
  risk: { limits: [{ scope: 'firm', maxOrderQty: 1_000 }] },
});

describe("walls: another team's records under a reused clordId cannot crowd an order out of its timeline", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { gateway: withLimit });
  });
  afterAll(() => stack?.close());

  it("keeps the order's own later records on its timeline by order id after 1,000 foreign records under its clordId", async () => {
    const placed = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 9, { clordId: 'desk-0042' }),
      'desk',
    );
    expect(placed.status).toBe(200);
    const { orderId } = (await json(placed)) as { orderId: string };

    // The rival team writes refused orders under the desk's clordId: each one a `refused` record of its own team.
    let next = 0;
    const statuses = new Set<number>();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < FLOOD) {
          next++;
          const res = await post(
            stack,
            '/exchange/v1/trading/orders',
            limit('SIDE_BUY', 5_000, 9, { clordId: 'desk-0042' }),
            'rival',
          );
          statuses.add(res.status);
          await res.arrayBuffer();
        }
      }),
    );
    expect([...statuses]).toEqual([422]);

    const cancel = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'desk');
    expect(cancel.status).toBe(200);

    const cancelOnTimeline = (records: Json[]) =>
      records.some(
        (record) =>
          record.kind === 'answer' &&
          record.data?.status === 200 &&
          record.team === 'platform' &&
          record.clordId === undefined,
      );
    for (const client of ['desk', 'all']) {
      const res = await api(stack, client)(`/orders/timeline?orderId=${orderId}`);
      expect(res.status).toBe(200);
      const body = (await json(res)) as { records: Json[]; truncated?: boolean };
      expect({ client, truncated: body.truncated ?? false, cancel: cancelOnTimeline(body.records) }).toEqual({
        client,
        truncated: false,
        cancel: true,
      });
      expect(body.records.filter((record) => record.team === 'trading')).toEqual([]);
    }
  }, 180_000); // 1,000 journaled refusals: about 10 s on a quiet machine, past 30 s beside two busy loops
});
